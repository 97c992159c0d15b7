package dev.lockstep.cli;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * One stress run's settings, shared by the parent and its worker processes through a properties
 * file.
 *
 * @param warehouse the warehouse URI or local path
 * @param table {@code database.table}
 * @param writers writer threads per process
 * @param processes worker processes (1 runs the writers inside the command's own JVM)
 * @param commits commits per writer
 * @param rows rows per commit
 * @param keySpace keys are drawn from {@code [0, keySpace)}, shared by all writers, so that writers
 *     overwrite each other's keys and the commit order decides the winner
 * @param compaction {@code inline}, {@code dedicated} or {@code off}
 * @param deadlineMillis epoch milliseconds after which writers stop early (0: none)
 * @param options catalog options ({@code -o})
 */
record StressConfig(
    String warehouse,
    String table,
    int writers,
    int processes,
    int commits,
    int rows,
    int keySpace,
    String compaction,
    long deadlineMillis,
    Map<String, String> options) {

  void write(Path file) throws IOException {
    Properties p = new Properties();
    p.setProperty("warehouse", warehouse);
    p.setProperty("table", table);
    p.setProperty("writers", Integer.toString(writers));
    p.setProperty("processes", Integer.toString(processes));
    p.setProperty("commits", Integer.toString(commits));
    p.setProperty("rows", Integer.toString(rows));
    p.setProperty("key-space", Integer.toString(keySpace));
    p.setProperty("compaction", compaction);
    p.setProperty("deadline-millis", Long.toString(deadlineMillis));
    options.forEach((k, v) -> p.setProperty("option." + k, v));
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      p.store(w, "lockstep stress run");
    }
  }

  static StressConfig read(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    Map<String, String> options = new TreeMap<>();
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith("option.")) {
        options.put(key.substring("option.".length()), p.getProperty(key));
      }
    }
    return new StressConfig(
        p.getProperty("warehouse"),
        p.getProperty("table"),
        Integer.parseInt(p.getProperty("writers")),
        Integer.parseInt(p.getProperty("processes")),
        Integer.parseInt(p.getProperty("commits")),
        Integer.parseInt(p.getProperty("rows")),
        Integer.parseInt(p.getProperty("key-space")),
        p.getProperty("compaction"),
        Long.parseLong(p.getProperty("deadline-millis")),
        options);
  }
}
