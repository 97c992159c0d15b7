package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unreachable services fail fast with the right fix (issue 25), through the real command line in a
 * JVM of its own (the launcher's logging set-up and the client libraries' logging included).
 */
class UnreachableServicesTest {

  private static final double TIMING =
      Double.parseDouble(System.getProperty("lockstep.test.timing", "1"));

  /** The bound for "cannot reach", JVM start included. */
  private static final Duration FAST = Duration.ofSeconds(10);

  @TempDir Path dir;

  /** The output of one {@code lockstep} process. */
  private record Run(int exitCode, List<String> lines, Duration took) {
    String text() {
      return String.join("\n", lines);
    }
  }

  private Run lockstep(String... args) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                LockstepCli.class.getName()));
    command.addAll(List.of(args));
    Path output = Files.createTempFile(dir, "lockstep-", ".out");
    long began = System.nanoTime();
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    if (!process.waitFor((long) (120 * TIMING), TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError(
          "lockstep "
              + String.join(" ", args)
              + " did not end in 120 s:\n"
              + Files.readString(output));
    }
    Duration took = Duration.ofNanos(System.nanoTime() - began);
    List<String> lines =
        Files.readAllLines(output, StandardCharsets.UTF_8).stream()
            .filter(line -> !line.isBlank())
            .toList();
    return new Run(process.exitValue(), lines, took);
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void conformanceAgainstAClosedPortSaysCannotReachWithTheEndpointAtOnce() throws Exception {
    String endpoint = "http://127.0.0.1:" + closedPort();
    Run run =
        lockstep(
            "conformance",
            "--store",
            "s3://bucket/conformance",
            "-o",
            "s3.endpoint=" + endpoint,
            "-o",
            "s3.access-key=a",
            "-o",
            "s3.secret-key=b",
            "-o",
            "s3.path-style-access=true");
    assertThat(run.exitCode()).as(run.text()).isEqualTo(OneLineErrors.ENVIRONMENT);
    assertThat(run.lines()).as(run.text()).hasSize(1);
    assertThat(run.lines().get(0))
        .startsWith("lockstep: cannot reach the store s3://bucket/")
        .contains(endpoint)
        .doesNotContain("s3.conditional-writes")
        .doesNotContain("broken");
    assertThat(run.took()).isLessThanOrEqualTo(FAST.multipliedBy((long) Math.ceil(TIMING)));
  }

  @Test
  void aDeadZooKeeperIsOneLineByDefaultAndTheClientsLoggingWithVerbose() throws Exception {
    String connect = "127.0.0.1:" + closedPort();
    String[] args = {
      "conformance",
      "--store",
      dir.resolve("store").toString(),
      "--lock",
      "zookeeper",
      "-o",
      "lock.zookeeper.connect-string=" + connect
    };
    Run run = lockstep(args);
    assertThat(run.exitCode()).as(run.text()).isEqualTo(OneLineErrors.ENVIRONMENT);
    assertThat(run.lines()).as(run.text()).hasSizeLessThanOrEqualTo(3);
    assertThat(run.text())
        .contains("cannot reach the lock service lock.type=zookeeper")
        .contains(connect);
    assertThat(run.took()).isLessThanOrEqualTo(FAST.multipliedBy((long) Math.ceil(TIMING)));

    List<String> verbose = new ArrayList<>(List.of(args));
    verbose.add("--verbose");
    Run shown = lockstep(verbose.toArray(String[]::new));
    assertThat(shown.exitCode()).isEqualTo(OneLineErrors.ENVIRONMENT);
    assertThat(shown.text())
        .as("the ZooKeeper client's own logging")
        .contains("org.apache.zookeeper")
        .contains("cannot reach the lock service");
    assertThat(shown.lines().size()).isGreaterThan(3);
  }

  /**
   * A read-only command sends no write to the store: the endpoint records each request line (and
   * answers 404, so the commands end at once). Before issue 25, opening an S3 warehouse with {@code
   * s3.conditional-writes=auto} wrote a probe object, reads included.
   */
  @Test
  void readOnlyCommandsWriteNoProbeObject() throws Exception {
    List<String> requests = new CopyOnWriteArrayList<>();
    try (ServerSocket server = new ServerSocket(0)) {
      Thread recorder = new Thread(() -> record(server, requests), "request-recorder");
      recorder.setDaemon(true);
      recorder.start();
      String endpoint = "http://127.0.0.1:" + server.getLocalPort();
      for (String command : List.of("read", "snapshots")) {
        Run run =
            lockstep(
                "table",
                command,
                "--warehouse",
                "s3://bucket/warehouse",
                "--table",
                "db.t",
                "-o",
                "s3.endpoint=" + endpoint,
                "-o",
                "s3.access-key=a",
                "-o",
                "s3.secret-key=b",
                "-o",
                "s3.path-style-access=true");
        assertThat(run.exitCode()).as(run.text()).isNotZero();
        assertThat(run.lines()).as(run.text()).hasSize(1);
      }
    }
    assertThat(requests)
        .as("requests the read-only commands sent")
        .isNotEmpty()
        .allSatisfy(request -> assertThat(request).matches("(GET|HEAD) .*"))
        .noneMatch(request -> request.contains(".lockstep-probe-"));
  }

  /** Records the request line of every request and answers 404 NoSuchKey, connection closed. */
  private static void record(ServerSocket server, List<String> requests) {
    while (!server.isClosed()) {
      try (Socket socket = server.accept()) {
        InputStream in = socket.getInputStream();
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
          line.append((char) c);
        }
        requests.add(line.toString().trim());
        byte[] body =
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchKey</Code>"
                    + "<Message>not here</Message></Error>")
                .getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(
            ("HTTP/1.1 404 Not Found\r\nContent-Type: application/xml\r\nContent-Length: "
                    + body.length
                    + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        out.write(body);
        out.flush();
      } catch (IOException e) {
        // closed at the end of the test, or a client that went away: next request
      }
    }
  }
}
