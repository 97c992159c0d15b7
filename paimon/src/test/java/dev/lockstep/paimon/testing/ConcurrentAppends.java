package dev.lockstep.paimon.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs {@link PaimonAppender} in several child JVMs at once on one table and collects what each was
 * told.
 */
public final class ConcurrentAppends {

  /** Which FileIO serves {@code s3://} in the child JVMs. */
  public enum ClassPath {
    /** Lockstep's FileIOs (this module), no {@code paimon-s3}. */
    LOCKSTEP,
    /** Paimon's own {@code paimon-s3}, without this module's classes. */
    PAIMON_S3,
    /** Both: Paimon refuses this at the first s3 path. */
    BOTH;

    List<String> entries() {
      String surefire = System.getProperty("surefire.test.class.path");
      String path =
          surefire != null && !surefire.isBlank()
              ? surefire
              : System.getProperty("java.class.path");
      List<String> entries = new ArrayList<>(Arrays.asList(path.split(File.pathSeparator)));
      String mainClasses = new File(System.getProperty("lockstep.main-classes")).getAbsolutePath();
      String paimonS3 = System.getProperty("lockstep.paimon-s3.jar");
      if (this == PAIMON_S3) {
        entries.removeIf(entry -> new File(entry).getAbsolutePath().equals(mainClasses));
      }
      if (this != LOCKSTEP) {
        entries.add(paimonS3);
      }
      return entries;
    }
  }

  /** What the writers were told: acknowledged and failed commits per writer. */
  public record Outcome(Map<Integer, Set<Integer>> acked, List<String> errors) {
    public int ackedCount() {
      return acked.values().stream().mapToInt(Set::size).sum();
    }
  }

  private ConcurrentAppends() {}

  /** Starts a child JVM running {@code mainClass} with these arguments; output merged. */
  public static Process start(ClassPath classPath, String mainClass, List<String> arguments)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("java.home") + "/bin/java");
    command.add("-Xmx320m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=error");
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classPath.entries()));
    command.add(mainClass);
    command.addAll(arguments);
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  /**
   * {@code writers} child JVMs, each appending {@code commits} one-row commits to {@code
   * database.table}, started together once all have loaded the table.
   */
  public static Outcome run(
      ClassPath classPath,
      int writers,
      int commits,
      Map<String, String> catalogOptions,
      String database,
      String table)
      throws Exception {
    List<Process> processes = new ArrayList<>();
    List<List<String>> outputs = new ArrayList<>();
    long started = System.nanoTime();
    long[] goAt = new long[1];
    try {
      for (int w = 0; w < writers; w++) {
        List<String> arguments =
            new ArrayList<>(
                List.of(database, table, Integer.toString(w), Integer.toString(commits)));
        catalogOptions.forEach((key, value) -> arguments.add(key + "=" + value));
        processes.add(start(classPath, PaimonAppender.class.getName(), arguments));
      }
      List<BufferedReader> readers = new ArrayList<>();
      for (Process process : processes) {
        BufferedReader reader =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        readers.add(reader);
        List<String> output = new ArrayList<>();
        outputs.add(output);
        String line;
        while ((line = reader.readLine()) != null && !line.equals("READY")) {
          output.add(line);
        }
        if (line == null) {
          throw new AssertionError(
              "A writer JVM ended before loading the table:\n" + String.join("\n", output));
        }
      }
      goAt[0] = System.nanoTime();
      for (Process process : processes) {
        Writer go = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        go.write("GO\n");
        go.flush();
      }
      List<CompletableFuture<Void>> drains = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        BufferedReader reader = readers.get(w);
        List<String> output = outputs.get(w);
        drains.add(
            CompletableFuture.runAsync(
                () -> {
                  try {
                    String line;
                    while ((line = reader.readLine()) != null) {
                      synchronized (output) {
                        output.add(line);
                      }
                    }
                  } catch (IOException e) {
                    throw new RuntimeException(e);
                  }
                }));
      }
      for (int w = 0; w < writers; w++) {
        drains.get(w).get(40, TimeUnit.MINUTES); // a hang guard, not a timing assertion
        if (!processes.get(w).waitFor(1, TimeUnit.MINUTES)) {
          throw new AssertionError("Writer " + w + " did not exit");
        }
      }
    } finally {
      for (Process process : processes) {
        process.destroyForcibly();
      }
    }
    long ended = System.nanoTime();
    System.out.printf(
        "%s: %d writer JVMs loaded the table in %d ms; %d commits each took %d ms%n",
        classPath,
        writers,
        (goAt[0] - started) / 1_000_000,
        commits,
        (ended - goAt[0]) / 1_000_000);
    Map<Integer, Set<Integer>> acked = new java.util.TreeMap<>();
    List<String> errors = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      Set<Integer> seqs = new TreeSet<>();
      boolean done = false;
      for (String line : outputs.get(w)) {
        if (line.startsWith("ACK ")) {
          seqs.add(Integer.parseInt(line.substring(4).trim()));
        } else if (line.startsWith("ERR ")) {
          errors.add("writer " + w + ": " + line);
        } else if (line.equals("DONE")) {
          done = true;
        }
      }
      if (!done) {
        throw new AssertionError(
            "Writer "
                + w
                + " did not finish:\n"
                + outputs.get(w).stream()
                    .filter(l -> !l.startsWith("ACK "))
                    .collect(Collectors.joining("\n")));
      }
      acked.put(w, seqs);
    }
    return new Outcome(acked, errors);
  }
}
