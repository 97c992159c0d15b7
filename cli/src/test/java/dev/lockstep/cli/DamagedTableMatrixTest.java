package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25's damaged-table matrix: the same damaged tables (a snapshot, a manifest list, a
 * manifest, a data file and the schema, each empty, truncated, garbage or missing) against every
 * command that can meet damage. For every pair the command either succeeds, and the table then
 * reads as the same command leaves an intact copy, or fails with one line on standard error that
 * names the file, what is wrong with it and the fix; never a stack trace; no file left behind (the
 * listing is the same, but for what a successful command commits); and afterwards {@code table
 * check --deep} reports exactly the damage made. A damaged snapshot that no operation needs (here
 * snapshot 2 of 3) stops no compaction, overwrite, {@code write --first-run}, listing or read:
 * those must succeed, and every command that succeeds past damage it met (all damage but a data
 * file's) prints one warning line naming the file, the damage and {@code lockstep table check},
 * exit 0.
 */
class DamagedTableMatrixTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLE = "db.t";

  /** What a failure must say is wrong with the file. */
  private static final Pattern DAMAGE =
      Pattern.compile("empty|truncated at byte \\d+|unparsable|missing");

  /** A parser's or library's exception as the whole message. */
  private static final Pattern RAW = Pattern.compile("^lockstep: [\\w.]*(Exception|Error)\\b");

  @TempDir Path dir;

  /** The commands, each with the arguments that make it meet the whole table. */
  private static final Map<String, List<String>> COMMANDS = new LinkedHashMap<>();

  static {
    COMMANDS.put("write", List.of("--generate", "8", "--offset", "20", "--commit-user", "m"));
    // A load that says it never ran: a damaged old snapshot cannot hold its batches, so it must
    // not stop it (docs/engine.md, "Damaged snapshots and the exactly-once check").
    COMMANDS.put(
        "write --first-run",
        List.of("--generate", "8", "--offset", "40", "--commit-user", "n", "--first-run"));
    COMMANDS.put("compact", List.of("--full", "--no-expire"));
    COMMANDS.put("overwrite", List.of("--generate", "4", "--offset", "100"));
    COMMANDS.put(
        "expire-snapshots",
        List.of("--retain-min", "1", "--retain-max", "2", "--older-than", "0s"));
    COMMANDS.put("remove-orphan-files", List.of("--older-than", "0s"));
    COMMANDS.put("snapshots", List.of());
    COMMANDS.put("read", List.of());
    COMMANDS.put("count", List.of());
    COMMANDS.put("check", List.of());
  }

  enum Damage {
    EMPTY,
    TRUNCATED,
    GARBAGE,
    MISSING
  }

  private static CliRun run(Path warehouse, String command, List<String> more) {
    List<String> all = new ArrayList<>();
    all.add("table");
    all.add(command.equals("count") ? "read" : command.split(" ")[0]);
    all.addAll(List.of("--warehouse", warehouse.toString(), "--table", TABLE));
    if (command.equals("count")) {
      all.add("--count");
    }
    all.addAll(more);
    return CliRun.of(all.toArray(String[]::new));
  }

  private static CliRun ok(Path warehouse, String command, String... more) {
    CliRun r = run(warehouse, command, List.of(more));
    assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
    return r;
  }

  /** Three snapshots of a partitioned primary-key table, 8 rows each, over 4 partitions. */
  private Path intact() throws IOException {
    Path wh = dir.resolve("intact");
    ok(
        wh,
        "create",
        "--schema",
        "dt STRING, k INT NOT NULL, v BIGINT",
        "--primary-key",
        "dt,k",
        "--partition-keys",
        "dt",
        "-o",
        "write-only=true");
    for (int offset : new int[] {0, 4, 8}) {
      ok(wh, "write", "--generate", "8", "--offset", Integer.toString(offset));
    }
    return wh;
  }

  private static Path tableDir(Path warehouse) {
    return warehouse.resolve("db.db/t");
  }

  /** The files to damage, by kind: but the snapshot, each referenced by snapshots 1 to 3. */
  private static Map<String, Path> targets(Path warehouse) throws IOException {
    Map<String, Path> targets = new LinkedHashMap<>();
    Path table = tableDir(warehouse);
    // A snapshot no operation needs: neither the latest (which every commit reads) nor the oldest
    // (a missing oldest snapshot is what expiration leaves behind).
    targets.put("snapshot", table.resolve("snapshot/snapshot-2"));
    JsonNode one = JSON.readTree(table.resolve("snapshot/snapshot-1").toFile());
    String list = one.get("deltaManifestList").asText();
    targets.put("manifest list", table.resolve("manifest").resolve(list));
    try (FileIO io = FileIODiscovery.open(dev.lockstep.fs.Path.of(warehouse.toString()), Map.of());
        FileStoreTable t =
            new FileSystemCatalog(io, dev.lockstep.fs.Path.of(warehouse.toString()), Map.of())
                .getTable(Identifier.parse(TABLE))) {
      String manifest = t.manifestList().read(list).get(0).fileName();
      targets.put("manifest", table.resolve("manifest").resolve(manifest));
    }
    JsonNode files = JSON.readTree(ok(warehouse, "files", "--snapshot", "1", "--json").out());
    String data = files.findValuesAsText("file").stream().findFirst().orElse(null);
    if (data == null) {
      data = files.findValuesAsText("name").get(0);
    }
    Path dataFile;
    try (Stream<Path> s = Files.walk(table)) {
      String name = Path.of(data).getFileName().toString();
      dataFile = s.filter(p -> p.getFileName().toString().equals(name)).findFirst().orElseThrow();
    }
    targets.put("data file", dataFile);
    targets.put("schema", table.resolve("schema/schema-0"));
    return targets;
  }

  private static void damage(Path file, Damage damage) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    switch (damage) {
      case EMPTY -> Files.write(file, new byte[0]);
      case TRUNCATED -> Files.write(file, Arrays.copyOf(bytes, bytes.length / 2));
      case GARBAGE -> {
        // The same length (so only reading it finds the damage), none of it valid.
        byte[] junk = new byte[bytes.length];
        new Random(bytes.length).nextBytes(junk);
        Files.write(file, junk);
      }
      case MISSING -> Files.delete(file);
    }
  }

  private static Set<String> listing(Path warehouse) throws IOException {
    Path table = tableDir(warehouse);
    try (Stream<Path> s = Files.walk(table)) {
      // EARLIEST and LATEST are hints any reader or expiration may rewrite, not table data.
      return s.filter(Files::isRegularFile)
          .map(p -> table.relativize(p).toString())
          .filter(p -> !p.equals("snapshot/EARLIEST") && !p.equals("snapshot/LATEST"))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /** The file names {@code check --deep --json} reports damaged. */
  private static Set<String> checked(Path warehouse) throws IOException {
    CliRun r = run(warehouse, "check", List.of("--deep", "--json"));
    if (r.out().isBlank()) {
      return Set.of("(check failed: " + r.err().strip() + ")");
    }
    Set<String> files = new TreeSet<>();
    for (JsonNode p : JSON.readTree(r.out()).get("problems")) {
      files.add(Path.of(p.get("file").asText()).getFileName().toString());
    }
    return files;
  }

  @Test
  void everyCommandOnEveryDamagedTableSucceedsOrNamesTheFileAndTheFix() throws Exception {
    Path intact = intact();
    // What each command leaves in an intact copy: the table a success must read as.
    Map<String, String> expected = new LinkedHashMap<>();
    for (String command : COMMANDS.keySet()) {
      Path copy = dir.resolve("clean-" + command);
      copy(intact, copy);
      CliRun r = run(copy, command, COMMANDS.get(command));
      assertThat(r.exitCode()).as(command + ": " + r.err()).isZero();
      expected.put(command, ok(copy, "read").out());
    }

    List<String> violations = new ArrayList<>();
    StringBuilder table = new StringBuilder();
    int cases = 0;
    for (String kind : targets(intact).keySet()) {
      for (Damage damage : Damage.values()) {
        for (String command : COMMANDS.keySet()) {
          cases++;
          Path wh = dir.resolve("case-" + cases);
          copy(intact, wh);
          Path file = targets(wh).get(kind);
          String name = file.getFileName().toString();
          damage(file, damage);
          Set<String> before = listing(wh);
          CliRun r = run(wh, command, COMMANDS.get(command));
          Set<String> after = listing(wh);
          String pair = kind + " " + damage.name().toLowerCase(Locale.ROOT) + " x " + command;
          String err = r.err().strip();
          boolean success = r.exitCode() == 0 || (command.equals("check") && r.exitCode() == 1);
          table.append(
              String.format(
                  "%-30s %-22s exit %d  %s%n",
                  pair, "", r.exitCode(), err.isEmpty() ? "" : err.lines().findFirst().get()));
          if (!success
              && kind.equals("snapshot")
              && Set.of("compact", "overwrite", "write --first-run", "snapshots", "read", "count")
                  .contains(command)) {
            violations.add(pair + ": a damaged old snapshot no operation needs stopped it: " + err);
          }
          if (!success && command.equals("remove-orphan-files") && !kind.equals("schema")) {
            violations.add(pair + ": orphan removal must work on a damaged table: " + err);
          }
          if (success
              && command.equals("remove-orphan-files")
              && !kind.equals("data file")
              // A snapshot file missing from the middle of the history looks like an expired id
              // published again: what precedes it is "below the history", kept and not read.
              && !(kind.equals("snapshot") && damage == Damage.MISSING)
              && !r.out().contains("could not read snapshot")) {
            violations.add(pair + ": does not say which snapshots it could not read: " + r.out());
          }
          if (success
              && command.equals("expire-snapshots")
              && !err.isEmpty()
              // A missing snapshot-2 starts the history at 3 (an expired id published again):
              // with one snapshot in the history there is truly nothing to expire.
              && !(kind.equals("snapshot") && damage == Damage.MISSING)
              && r.out().contains("nothing to expire")) {
            // --retain-max 2 of 3 snapshots wants one expired: if none was, the damage stopped
            // it, and "nothing to expire" would blame the retention settings.
            violations.add(pair + ": says nothing to expire, stopped by damage: " + r.out());
          }
          if (!success) {
            if (err.lines().count() != 1 || !err.startsWith("lockstep: ")) {
              violations.add(pair + ": not one line: " + err);
            }
            if (err.contains("\tat ") || RAW.matcher(err).find()) {
              violations.add(pair + ": a stack trace or a raw exception: " + err);
            }
            if (!err.contains(name)) {
              violations.add(pair + ": does not name " + name + ": " + err);
            }
            if (!DAMAGE.matcher(err).find()) {
              violations.add(pair + ": does not say what is wrong: " + err);
            }
            if (!err.contains("'lockstep ") && !err.toLowerCase(Locale.ROOT).contains("restore")) {
              violations.add(pair + ": gives no fix: " + err);
            }
            if (!after.equals(before)) {
              violations.add(pair + ": files changed: " + diff(before, after));
            }
          } else if (!command.equals("check")) {
            // A success past damage says so: one warning line naming the file, what is wrong and
            // where to look. Every damage but a data file's (which these commands do not read, or
            // need) is met on the way: a snapshot by every look-up of the latest, the others by
            // orphan removal and expiration.
            if (!err.isEmpty() || !kind.equals("data file")) {
              if (err.lines().count() != 1 || !err.startsWith("lockstep: warning: ")) {
                violations.add(pair + ": succeeded past the damage without one warning: " + err);
              } else if (!err.contains(name)
                  || !DAMAGE.matcher(err).find()
                  || !err.contains("'lockstep table check'")) {
                violations.add(
                    pair + ": the warning does not name the file, damage and check: " + err);
              }
            }
          }
          if (success) {
            Set<String> removed = new TreeSet<>(before);
            removed.removeAll(after);
            if (!removed.isEmpty() && !command.equals("expire-snapshots")) {
              violations.add(pair + ": deleted " + removed);
            }
            if (command.equals("remove-orphan-files") && !removed.isEmpty()) {
              violations.add(pair + ": orphan removal deleted " + removed);
            }
            CliRun read = run(wh, "read", List.of());
            if (read.exitCode() == 0 && !read.out().equals(expected.get(command))) {
              violations.add(pair + ": reads differently from an intact table after it");
            }
          }
          Set<String> found = checked(wh);
          // Expiration that succeeds may expire the range holding a damaged snapshot: then the
          // damage went with it (the snapshot would have been expired anyway).
          boolean expiredWithIt =
              success
                  && command.equals("expire-snapshots")
                  && kind.equals("snapshot")
                  && found.isEmpty();
          if (!found.equals(Set.of(name)) && !expiredWithIt) {
            violations.add(pair + ": check reports " + found + ", the damage was " + name);
          }
        }
      }
    }
    System.out.println(table);
    assertThat(violations).as(String.join("\n", violations)).isEmpty();
  }

  private static String diff(Set<String> before, Set<String> after) {
    Set<String> added = new TreeSet<>(after);
    added.removeAll(before);
    Set<String> removed = new TreeSet<>(before);
    removed.removeAll(after);
    return "added " + added + ", removed " + removed;
  }
}
