package dev.lockstep.engine.history;

import dev.lockstep.fs.Path;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;

/**
 * One committer process of {@link HistoryCheckTest#separateProcessesWithFaults}: runs {@link
 * HistoryChecker#run} on an existing table and appends each acknowledged commit to a file, flushed
 * before the next commit starts, so the parent knows every acknowledgement even if this process
 * dies. Prints {@code done} at the end.
 *
 * <p>Arguments: warehouse, strategy, user prefix, threads, commits, rows, seed, retain-max,
 * lost-answer probability, pause probability, interrupt interval (ms), acknowledgement file.
 */
public final class HistoryCheckMain {

  private HistoryCheckMain() {}

  public static void main(String[] args) throws Exception {
    Path warehouse = Path.of(args[0]);
    HistoryChecker.Config config =
        new HistoryChecker.Config(
            HistoryChecker.Strategy.valueOf(args[1]),
            Integer.parseInt(args[3]),
            Integer.parseInt(args[4]),
            Integer.parseInt(args[5]),
            Long.parseLong(args[6]),
            Integer.parseInt(args[7]),
            Double.parseDouble(args[8]),
            Double.parseDouble(args[9]),
            Integer.parseInt(args[10]));
    HistoryChecker.Stats stats = new HistoryChecker.Stats();
    try (BufferedWriter out =
        Files.newBufferedWriter(
            java.nio.file.Path.of(args[11]),
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND)) {
      HistoryChecker.run(
          warehouse,
          config,
          args[2],
          stats,
          ack -> {
            synchronized (out) {
              try {
                out.write(ack.line());
                out.newLine();
                out.flush();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            }
          });
    }
    System.out.println(stats);
    if (!stats.wentBack.isEmpty()) {
      System.out.println("went back: " + stats.wentBack);
    }
    System.out.println("done");
    System.exit(0);
  }
}
