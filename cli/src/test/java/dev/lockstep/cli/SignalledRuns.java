package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs {@code lockstep table ...} commands as real processes against one table and signals them
 * ({@code kill -INT} or {@code kill -TERM}) at a random point once they change the table's files;
 * then checks what issue 25 asks of every interrupted run: exit 128 + signal (or 0 when it finished
 * first), a summary of what was committed, a table that passes {@code table check --deep}, and no
 * unreferenced file unless the run reported an UNKNOWN outcome.
 */
final class SignalledRuns {

  private final Path dir;
  private final Random random = new Random();

  /**
   * Per command, the span the random point is drawn from (milliseconds after the first change). It
   * grows after each run the signal reached mid-way and shrinks after each run that finished first,
   * so that the points spread over the whole run however fast the machine is (on a loaded machine a
   * fixed span would stop every write in its first batch).
   */
  private final java.util.Map<String, Integer> spans = new java.util.HashMap<>();

  private int interrupted;

  SignalledRuns(Path dir) {
    this.dir = dir;
  }

  /**
   * Whether SIGINT is ignored in this JVM (inherited from the process that started it): then the
   * processes it starts ignore it too, and HotSpot installs no handler for an ignored SIGINT. Reads
   * the disposition by setting the default and putting the old one back at once.
   */
  static boolean sigintIgnored() {
    sun.misc.Signal sigint = new sun.misc.Signal("INT");
    sun.misc.SignalHandler old = sun.misc.Signal.handle(sigint, sun.misc.SignalHandler.SIG_DFL);
    sun.misc.Signal.handle(sigint, old);
    return old == sun.misc.SignalHandler.SIG_IGN;
  }

  /**
   * How to start a JVM that SIGINT interrupts: {@code java}, behind coreutils' {@code env
   * --default-signal=INT} when SIGINT is ignored here (the tests started as a background job of a
   * script without job control), so that the child gets SIGINT's default disposition back and
   * HotSpot installs its handler. Without such an {@code env} the child ignores SIGINT, and the
   * tests that send it fail (InterruptTest says so up front).
   */
  static List<String> java() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    if (sigintIgnored() && envResetsSigint()) {
      return new ArrayList<>(List.of("env", "--default-signal=INT", java));
    }
    return new ArrayList<>(List.of(java));
  }

  /** Whether the processes {@link #java} starts get SIGINT's default disposition. */
  static boolean childrenTakeSigint() {
    return !sigintIgnored() || envResetsSigint();
  }

  private static Boolean envResets;

  private static synchronized boolean envResetsSigint() {
    if (envResets == null) {
      try {
        Process p =
            new ProcessBuilder("env", "--default-signal=INT", "true")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        envResets = p.waitFor() == 0;
      } catch (IOException | InterruptedException e) {
        envResets = false;
      }
    }
    return envResets;
  }

  /** The runs so far that printed an interruption summary (the others finished first). */
  int interrupted() {
    return interrupted;
  }

  String[] args(String command, String... more) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", "db.t"));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  CliRun ok(String command, String... more) {
    CliRun run = CliRun.of(args(command, more));
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    return run;
  }

  private Process start(Path log, String... cliArgs) throws IOException {
    List<String> command = java();
    command.addAll(
        List.of(
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp",
            System.getProperty("java.class.path"),
            LockstepCli.class.getName()));
    command.addAll(List.of(cliArgs));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void signal(Process p, String name) throws Exception {
    new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).start().waitFor();
  }

  long snapshots() throws IOException {
    Path s = dir.resolve("wh/db.db/t/snapshot");
    if (!Files.isDirectory(s)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(s)) {
      return files.filter(p -> p.getFileName().toString().startsWith("snapshot-")).count();
    }
  }

  private List<String> files() throws IOException {
    Path t = dir.resolve("wh/db.db/t");
    try (Stream<Path> files = Files.walk(t)) {
      return files.filter(Files::isRegularFile).map(Path::toString).sorted().toList();
    } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException changing) {
      return List.of("(changing: " + changing.getMessage() + ")"); // a file went while listed
    }
  }

  /**
   * One run of {@code command} signalled with {@code signal} (INT or TERM) at a random point after
   * its first change to the table's files, drawn from a span that starts at {@code maxDelayMillis}
   * and adapts to the command's duration; returns what it printed.
   */
  String interruptAt(String signal, int maxDelayMillis, String... command) throws Exception {
    return interruptAt(signal, maxDelayMillis, true, command);
  }

  /**
   * As {@link #interruptAt(String, int, String...)}; {@code noOrphan}: whether the table may hold
   * no unreferenced file afterwards (false for orphan removal, whose interrupted run leaves the
   * orphans it did not reach).
   */
  String interruptAt(String signal, int maxDelayMillis, boolean noOrphan, String... command)
      throws Exception {
    Path log = Files.createTempFile(dir, "child", ".log");
    long before = snapshots();
    List<String> filesBefore = files();
    Process child =
        start(
            log,
            args(command[0], List.of(command).subList(1, command.length).toArray(String[]::new)));
    // A random point once the command runs (its first file written or deleted): writing,
    // committing, deleting, between batches, or done.
    long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (child.isAlive() && files().equals(filesBefore) && System.nanoTime() < waitUntil) {
      Thread.sleep(5);
    }
    int span = spans.getOrDefault(command[0], maxDelayMillis);
    if (span > 0) {
      Thread.sleep(random.nextInt(span));
    }
    if (child.isAlive()) {
      signal(child, signal);
    }
    assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("child ended").isTrue();
    String output = Files.readString(log);
    int code = child.exitValue();
    int signalled = "TERM".equals(signal) ? 143 : 130;
    System.out.printf(
        "%s SIG%s: exit %d, %s%n", command[0], signal, code, output.strip().replace('\n', '|'));
    assertThat(code).as(output).isIn(0, signalled);
    if (code == signalled && output.contains("interrupted by")) {
      // The command got the signal: it says what was committed and what not.
      assertThat(output).as(output).contains("interrupted by SIG" + signal);
      assertThat(output).as(output).containsPattern("committed|compact|expire|remov");
      interrupted++;
      spans.put(command[0], Math.min(60_000, Math.max(span, 1) * 3 / 2 + 50));
    } else if (code == signalled && output.isBlank()) {
      // The signal came before the command installed its handler (the JVM starting): the run
      // wrote nothing.
      assertThat(snapshots()).as(output).isEqualTo(before);
    } else {
      // Done before the signal reached a point that notices it: the usual summary.
      assertThat(output).as(output).containsPattern("wrote|compact|expire|remov|overwrote");
      spans.put(command[0], Math.max(maxDelayMillis, span * 4 / 5));
    }
    CliRun check = CliRun.of(args("check", "--deep"));
    assertThat(check.exitCode()).as(check.out() + check.err() + output).isZero();
    if (!noOrphan) {
      return output;
    }
    if (!output.contains("UNKNOWN")) {
      CliRun orphans = ok("remove-orphan-files", "--older-than", "0s", "--dry-run");
      assertThat(orphans.out())
          .as("no file left behind: " + output + orphans.out())
          .contains("found 0 orphan");
    } else {
      ok("remove-orphan-files", "--older-than", "0s"); // the next run starts clean
    }
    return output;
  }
}
