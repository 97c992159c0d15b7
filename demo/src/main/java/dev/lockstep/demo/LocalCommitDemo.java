package dev.lockstep.demo;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs N local processes that commit snapshots to one table directory at the same time, then checks
 * the result and prints what it checked:
 *
 * <ol>
 *   <li>every process exited cleanly;
 *   <li>the snapshot ids are exactly 1..N*M, each once (no gap, no double winner);
 *   <li>each snapshot file names its own id, and every commit id appears exactly once (no lost
 *       commit, no commit landed twice);
 *   <li>each process's commit identifiers 1..M appear exactly once;
 *   <li>{@code latestId()} (the verified {@code LATEST} hint) is N*M;
 *   <li>which commit strategy the processes used.
 * </ol>
 *
 * <pre>
 *   LocalCommitDemo [--processes 4] [--commits 250] [--dir DIR] [--option key=value]...
 * </pre>
 *
 * <p>Options such as {@code commit.strategy=rename} go to every process. The exit code is 0 only
 * when every check holds. {@code --worker} runs one committing process (used by the coordinator).
 */
public final class LocalCommitDemo {

  static final String LOCK_KEY = "demo.table";
  private static final Pattern FIELD =
      Pattern.compile("\"(id|commitUser|commitIdentifier|commitId)\":\"?([^\",}]*)\"?");

  private LocalCommitDemo() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> flags = new HashMap<>();
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--worker":
          flags.put("worker", "true");
          break;
        case "--processes":
        case "--commits":
        case "--dir":
        case "--user":
          flags.put(arg.substring(2), value(args, ++i, arg));
          break;
        case "--option":
          String kv = value(args, ++i, arg);
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            throw usage("--option takes key=value, not '" + kv + "'");
          }
          options.put(kv.substring(0, eq), kv.substring(eq + 1));
          break;
        case "-h":
        case "--help":
          System.out.println(usage("").getMessage());
          return;
        default:
          throw usage("unknown argument '" + arg + "'");
      }
    }
    int commits = positive(flags.getOrDefault("commits", "250"), "--commits");
    if (flags.containsKey("worker")) {
      String dir = flags.get("dir");
      if (dir == null) {
        throw usage("--worker needs --dir");
      }
      System.exit(work(dir, flags.getOrDefault("user", "worker"), commits, options));
    }
    int processes = positive(flags.getOrDefault("processes", "4"), "--processes");
    String dir =
        flags.containsKey("dir")
            ? flags.get("dir")
            : Files.createTempDirectory("lockstep-demo-").toString();
    System.exit(coordinate(dir, processes, commits, options) ? 0 : 1);
  }

  /** One committing process: commits {@code commits} snapshots, retrying on conflict. */
  static int work(String dir, String user, int commits, Map<String, String> options)
      throws IOException, InterruptedException {
    Path snapshots = Path.of(dir).child("snapshot");
    int conflicts = 0;
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(new LocalFileIO(), snapshots, LOCK_KEY).options(options).open()) {
      SnapshotLog log = committer.log();
      for (int identifier = 1; identifier <= commits; identifier++) {
        String commitId = UUID.randomUUID().toString();
        while (true) {
          long id = log.latestId().orElse(0) + 1;
          CommitOutcome outcome =
              committer
                  .commit(id, SnapshotContent.of(snapshotJson(id, user, identifier, commitId)))
                  .outcome();
          if (outcome == CommitOutcome.COMMITTED) {
            break;
          }
          conflicts++;
        }
      }
      System.out.println(
          "RESULT user="
              + user
              + " committed="
              + commits
              + " conflicts="
              + conflicts
              + " strategy="
              + committer.strategy());
      return 0;
    } catch (CommitStateUnknownException e) {
      System.err.println("UNKNOWN " + e.getMessage());
      return 2;
    }
  }

  /** Launches the processes, waits for them, and checks the table. */
  static boolean coordinate(String dir, int processes, int commits, Map<String, String> options)
      throws IOException, InterruptedException {
    System.out.println(
        "Lockstep local commit demo: "
            + processes
            + " processes x "
            + commits
            + " commits into "
            + dir
            + (options.isEmpty() ? "" : " with " + options));
    long start = System.nanoTime();
    List<Process> running = new ArrayList<>();
    List<File> outputs = new ArrayList<>();
    for (int p = 1; p <= processes; p++) {
      File out = File.createTempFile("lockstep-demo-worker-" + p + "-", ".log");
      out.deleteOnExit();
      List<String> command = workerCommand(dir, "writer-" + p, commits, options);
      running.add(
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out).start());
      outputs.add(out);
    }
    boolean ok = true;
    List<String> strategies = new ArrayList<>();
    int conflicts = 0;
    for (int p = 0; p < running.size(); p++) {
      Process process = running.get(p);
      if (!process.waitFor(10, TimeUnit.MINUTES)) {
        process.destroyForcibly().waitFor();
      }
      String output = Files.readString(outputs.get(p).toPath());
      Matcher m = Pattern.compile("RESULT .* conflicts=(\\d+) strategy=(.*)").matcher(output);
      if (process.exitValue() != 0 || !m.find()) {
        ok =
            check(
                false,
                "process writer-"
                    + (p + 1)
                    + " exited "
                    + process.exitValue()
                    + ": "
                    + output.trim());
        continue;
      }
      conflicts += Integer.parseInt(m.group(1));
      strategies.add(m.group(2).trim());
    }
    ok &=
        check(
            strategies.size() == processes,
            processes
                + " processes finished cleanly ("
                + conflicts
                + " snapshot conflicts resolved by retrying at the next id)");
    ok &= verify(dir, processes, commits);
    ok &=
        check(
            strategies.stream().distinct().count() == 1,
            "commit strategy used: " + String.join(", ", strategies.stream().distinct().toList()));
    System.out.printf(
        "%s in %.1f s%n",
        ok ? "ALL CHECKS PASSED" : "SOME CHECKS FAILED", (System.nanoTime() - start) / 1e9);
    return ok;
  }

  /** Checks the snapshot files against the invariants listed in the class javadoc. */
  static boolean verify(String dir, int processes, int commits) throws IOException {
    long total = (long) processes * commits;
    SnapshotLog log = new SnapshotLog(new LocalFileIO(), Path.of(dir).child("snapshot"));
    List<Long> ids = log.listIds();
    boolean contiguous = ids.size() == total;
    for (int i = 0; i < ids.size() && contiguous; i++) {
      contiguous = ids.get(i) == i + 1;
    }
    boolean ok =
        check(
            contiguous,
            "snapshots are exactly 1.."
                + total
                + " (found "
                + ids.size()
                + (ids.isEmpty() ? "" : ", " + ids.get(0) + ".." + ids.get(ids.size() - 1))
                + ")");
    Map<String, Integer> commitIds = new HashMap<>();
    Map<String, Integer> identifiers = new TreeMap<>();
    int misnamed = 0;
    for (long id : ids) {
      Map<String, String> fields = parseSnapshot(log.read(id));
      if (!String.valueOf(id).equals(fields.get("id"))) {
        misnamed++;
      }
      commitIds.merge(String.valueOf(fields.get("commitId")), 1, Integer::sum);
      identifiers.merge(
          fields.get("commitUser") + "#" + fields.get("commitIdentifier"), 1, Integer::sum);
    }
    ok &= check(misnamed == 0, "every snapshot file carries its own id (" + misnamed + " do not)");
    long duplicated = commitIds.values().stream().filter(n -> n > 1).count();
    ok &=
        check(
            commitIds.size() == total && duplicated == 0,
            "every commit id appears exactly once ("
                + commitIds.size()
                + " distinct, "
                + duplicated
                + " duplicated)");
    boolean identifiersOnce =
        identifiers.size() == total && identifiers.values().stream().allMatch(n -> n == 1);
    ok &=
        check(
            identifiersOnce,
            "each writer's commit identifiers 1.." + commits + " appear exactly once");
    long latest = log.latestId().orElse(0);
    ok &= check(latest == total, "latest snapshot (LATEST hint, verified) is " + latest);
    return ok;
  }

  /** The snapshot content: a small JSON object with a unique commit id. */
  static byte[] snapshotJson(long id, String user, long identifier, String commitId) {
    return ("{\"id\":"
            + id
            + ",\"commitUser\":\""
            + user
            + "\",\"commitIdentifier\":"
            + identifier
            + ",\"commitId\":\""
            + commitId
            + "\"}\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The fields of {@link #snapshotJson}. */
  static Map<String, String> parseSnapshot(byte[] content) {
    Map<String, String> fields = new HashMap<>();
    Matcher m = FIELD.matcher(new String(content, StandardCharsets.UTF_8));
    while (m.find()) {
      fields.put(m.group(1), m.group(2));
    }
    return fields;
  }

  /** The command that runs one worker in a new JVM with this JVM's java and classpath. */
  static List<String> workerCommand(
      String dir, String user, int commits, Map<String, String> options) {
    List<String> command = new ArrayList<>();
    command.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx128m");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Dslf4j.internal.verbosity=ERROR");
    command.add("-cp");
    command.add(classpath());
    command.add(LocalCommitDemo.class.getName());
    command.addAll(
        List.of("--worker", "--dir", dir, "--user", user, "--commits", String.valueOf(commits)));
    options.forEach((k, v) -> command.addAll(List.of("--option", k + "=" + v)));
    return command;
  }

  /** This JVM's classpath; under Surefire the full test classpath rather than its booter jar. */
  static String classpath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank()
        ? surefire
        : System.getProperty("java.class.path");
  }

  private static boolean check(boolean holds, String what) {
    System.out.println((holds ? "  [ok]     " : "  [FAILED] ") + what);
    return holds;
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      throw usage(flag + " needs a value");
    }
    return args[i];
  }

  private static int positive(String text, String flag) {
    try {
      int n = Integer.parseInt(text.trim());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw usage(flag + " must be a whole number of at least 1, not '" + text + "'");
  }

  private static IllegalArgumentException usage(String problem) {
    return new IllegalArgumentException(
        (problem.isEmpty() ? "" : problem + ". ")
            + "Usage: LocalCommitDemo [--processes 4] [--commits 250] [--dir DIR]"
            + " [--option key=value]... (for example --option "
            + CommitOptions.COMMIT_STRATEGY
            + "=rename)");
  }
}
