package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.lock.hive.testing.TestMetastore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two holders in separate JVM processes exclude each other through the metastore. */
class HiveCrossProcessTest {

  private static final int PROCESSES = 2;
  private static final int INCREMENTS = 30;

  private static TestMetastore metastore;

  @BeforeAll
  static void startMetastore() throws Exception {
    metastore = TestMetastore.shared();
  }

  @Test
  void holdersInTwoProcessesNeverOverlapAndTokensIncrease(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tokens.txt");
    Files.writeString(file, "");
    List<Process> processes = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    for (int p = 0; p < PROCESSES; p++) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx256m",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  LockHolderMain.class.getName(),
                  "increments",
                  Integer.toString(INCREMENTS),
                  file.toString(),
                  "cross.process"));
      for (Map.Entry<String, String> option : metastore.lockOptions().entrySet()) {
        command.add(option.getKey() + "=" + option.getValue());
      }
      Path output = dir.resolve("holder-" + p + ".log");
      outputs.add(output);
      processes.add(
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start());
    }
    try {
      for (int p = 0; p < PROCESSES; p++) {
        boolean exited = processes.get(p).waitFor(3L * TestMetastore.TIMING, TimeUnit.MINUTES);
        String log = Files.readString(outputs.get(p), StandardCharsets.UTF_8);
        assertThat(exited).as("holder process %d finished; its output:%n%s", p, log).isTrue();
        assertThat(processes.get(p).exitValue())
            .as("holder process %d; its output:%n%s", p, log)
            .isZero();
        assertThat(log).contains("DONE");
      }
    } finally {
      processes.forEach(Process::destroyForcibly);
    }
    List<Long> tokens =
        Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(Long::parseLong).toList();
    assertThat(tokens)
        .as("one line per increment: a lost update means two holders overlapped")
        .hasSize(PROCESSES * INCREMENTS);
    assertThat(tokens)
        .as("fencing tokens in the order the holders wrote them")
        .isSorted()
        .doesNotHaveDuplicates();
    assertThat(metastore.locksOn("cross", "process")).isEmpty();
  }
}
