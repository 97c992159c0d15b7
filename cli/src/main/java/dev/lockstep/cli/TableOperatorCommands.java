package dev.lockstep.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.maintenance.TableCheck;
import dev.lockstep.engine.maintenance.TagManager;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.operation.Rollback;
import dev.lockstep.engine.snapshot.DamagedFileException;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code lockstep table check|rollback|create-tag|delete-tag|tags|files|drop}. */
final class TableOperatorCommands {

  private TableOperatorCommands() {}

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description =
          "Check, without writing, that every snapshot, tag, manifest list, manifest,"
              + " schema and live data file is present and parses; exit code 1 on damage.")
  static final class Check implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--deep", description = "Also read every row of every live data file")
    boolean deep;

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      TableCheck.Report r;
      try (TableTarget.Opened opened = target.open(false)) {
        r = new TableCheck(opened.table(), deep).run();
      } catch (DamagedFileException d) {
        // The schema does not read: the table cannot be opened, and that is the damage found.
        r =
            new TableCheck.Report(
                0,
                0,
                0,
                0,
                0,
                1,
                0,
                deep,
                List.of(new TableCheck.Problem(d.kind(), d.file(), d.damage(), List.of())));
      }
      if (json) {
        ObjectNode node =
            Json.object()
                .put("table", target.table)
                .put("verdict", r.ok() ? "ok" : "damaged")
                .put("deep", r.deep());
        node.putObject("checked")
            .put("snapshots", r.snapshots())
            .put("tags", r.tags())
            .put("manifestLists", r.manifestLists())
            .put("manifests", r.manifests())
            .put("dataFiles", r.dataFiles())
            .put("schemas", r.schemas())
            .put("rowsRead", r.rowsRead());
        ArrayNode problems = node.putArray("problems");
        for (TableCheck.Problem p : r.problems()) {
          ObjectNode item =
              problems
                  .addObject()
                  .put("kind", p.kind())
                  .put("file", p.file())
                  .put("damage", p.damage());
          p.snapshots().forEach(item.putArray("referencedBy")::add);
        }
        out.println(Json.write(node));
      } else {
        out.printf(
            "checked %s: %d snapshot(s), %d tag(s), %d manifest list(s), %d manifest(s),"
                + " %d data file(s), %d schema(s)%s%n",
            target.table,
            r.snapshots(),
            r.tags(),
            r.manifestLists(),
            r.manifests(),
            r.dataFiles(),
            r.schemas(),
            r.deep() ? ", " + r.rowsRead() + " row(s) read" : "");
        for (TableCheck.Problem p : r.problems()) {
          out.println("  damaged: " + p.describe());
        }
        out.println(
            r.ok()
                ? "verdict  OK: no damage found"
                    + (r.deep() ? "" : " (--deep also reads every row)")
                : "verdict  DAMAGED: "
                    + r.problems().size()
                    + " problem(s). Restore the files from a"
                    + " backup, or roll back to a snapshot that does not reference them ('lockstep"
                    + " table rollback --to-snapshot N')");
      }
      out.flush();
      return r.ok() ? 0 : OneLineErrors.BROKEN;
    }
  }

  @Command(
      name = "rollback",
      mixinStandardHelpOptions = true,
      description =
          "Restore the contents of an earlier snapshot (by id, time or tag) as one new"
              + " OVERWRITE snapshot; the snapshots in between stay in the history.")
  static final class RollbackCommand implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--to-snapshot", paramLabel = "ID", description = "The snapshot to restore")
    Long toSnapshot;

    @Option(
        names = "--to-time",
        paramLabel = "TIME",
        description =
            "Restore the latest snapshot"
                + " committed at or before TIME: 2024-05-01T10:00:00Z, or local 2024-05-01 10:00[:00]")
    String toTime;

    @Option(names = "--to-tag", paramLabel = "NAME", description = "Restore a tag's snapshot")
    String toTag;

    @Option(names = "--dry-run", description = "Count the rows it would restore; write nothing")
    boolean dryRun;

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      int given = (toSnapshot != null ? 1 : 0) + (toTime != null ? 1 : 0) + (toTag != null ? 1 : 0);
      if (given != 1) {
        throw new UserError("give exactly one of --to-snapshot ID, --to-time TIME, --to-tag NAME");
      }
      Instant time = toTime == null ? null : instant(toTime);
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(!dryRun)) {
        Rollback rollback = new Rollback(opened.table());
        Snapshot to =
            toSnapshot != null
                ? rollback.snapshot(toSnapshot)
                : time != null ? rollback.atTime(time) : rollback.tag(toTag);
        Rollback.Result r = dryRun ? rollback.dryRun(to) : rollback.run(to);
        if (json) {
          out.println(
              Json.write(
                  Json.object()
                      .put("table", target.table)
                      .put("previousSnapshot", r.previousSnapshotId())
                      .put("restoredSnapshot", r.restoredSnapshotId())
                      .put("currentSnapshot", r.currentSnapshotId())
                      .put("rows", r.rows())
                      .put("dryRun", r.dryRun())));
        } else if (dryRun) {
          out.printf(
              "would roll %s back from snapshot %d to snapshot %d: %d row(s) written again"
                  + " as one OVERWRITE (dry run: nothing written)%n",
              target.table, r.previousSnapshotId(), r.restoredSnapshotId(), r.rows());
        } else {
          out.printf(
              "rolled %s back to snapshot %d: snapshot %d (OVERWRITE) holds its %d row(s);"
                  + " snapshots up to %d stay in the history%n",
              target.table,
              r.restoredSnapshotId(),
              r.currentSnapshotId(),
              r.rows(),
              r.previousSnapshotId());
        }
      }
      return 0;
    }

    private static Instant instant(String text) {
      try {
        return Instant.parse(text.trim());
      } catch (DateTimeParseException notInstant) {
        try {
          String local = text.trim().replace(' ', 'T');
          return LocalDateTime.parse(local.length() == 16 ? local + ":00" : local)
              .atZone(ZoneId.systemDefault())
              .toInstant();
        } catch (DateTimeParseException e) {
          throw new UserError(
              "--to-time '"
                  + text
                  + "' is not a time; write 2024-05-01T10:00:00Z"
                  + " or 2024-05-01 10:00 (local time)");
        }
      }
    }
  }

  @Command(
      name = "create-tag",
      mixinStandardHelpOptions = true,
      description =
          "Tag a snapshot: expiration and orphan removal keep its files until the tag is"
              + " deleted, and rollback --to-tag restores it.")
  static final class CreateTag implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--name", required = true, paramLabel = "NAME", description = "The tag's name")
    String name;

    @Option(names = "--snapshot", paramLabel = "ID", description = "The snapshot (default: latest)")
    Long snapshot;

    @Option(names = "--dry-run", description = "Check the name and snapshot; write nothing")
    boolean dryRun;

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(!dryRun)) {
        FileStoreTable table = opened.table();
        OptionalLong latest = table.snapshotManager().latestId();
        if (snapshot == null && latest.isEmpty()) {
          throw new UserError(target.table + " has no snapshot to tag yet; write to it first");
        }
        long id = snapshot != null ? snapshot : latest.getAsLong();
        TagManager tags = new TagManager(table);
        Snapshot tagged;
        if (dryRun) {
          if (tags.find(name).isPresent()) {
            throw new UserError(
                "tag '"
                    + name
                    + "' of "
                    + target.table
                    + " exists already;"
                    + " delete it first ('lockstep table delete-tag --name "
                    + name
                    + "')");
          }
          tagged = TableDiagnosis.snapshot(table, id);
        } else {
          tagged = tags.create(name, id).snapshot();
        }
        if (json) {
          out.println(
              Json.write(
                  Json.object()
                      .put("table", target.table)
                      .put("tag", name)
                      .put("snapshot", tagged.id())
                      .put("dryRun", dryRun)));
        } else {
          out.printf(
              "%s tag %s of %s on snapshot %d (%s, %s)%s%n",
              dryRun ? "would create" : "created",
              name,
              target.table,
              tagged.id(),
              tagged.commitKind(),
              Instant.ofEpochMilli(tagged.timeMillis()),
              dryRun
                  ? " (dry run: nothing written)"
                  : "; its files stay until 'lockstep table" + " delete-tag --name " + name + "'");
        }
      }
      return 0;
    }
  }

  @Command(
      name = "delete-tag",
      mixinStandardHelpOptions = true,
      description = "Delete a tag. Files only it kept become orphans for remove-orphan-files.")
  static final class DeleteTag implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--name", required = true, paramLabel = "NAME", description = "The tag's name")
    String name;

    @Option(names = "--dry-run", description = "Check that the tag exists; delete nothing")
    boolean dryRun;

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(!dryRun)) {
        TagManager tags = new TagManager(opened.table());
        var tag = tags.find(name);
        if (tag.isEmpty()) {
          throw new UserError(
              "tag '"
                  + name
                  + "' of "
                  + target.table
                  + " does not exist; the"
                  + " tags are "
                  + tags.tags().stream().map(TagManager.Tag::name).toList()
                  + " ('lockstep table tags')");
        }
        if (!dryRun) {
          tags.delete(name);
        }
        if (json) {
          out.println(
              Json.write(
                  Json.object()
                      .put("table", target.table)
                      .put("tag", name)
                      .put("snapshot", tag.get().snapshot().id())
                      .put("dryRun", dryRun)));
        } else {
          out.printf(
              "%s tag %s of %s (snapshot %d)%s%n",
              dryRun ? "would delete" : "deleted",
              name,
              target.table,
              tag.get().snapshot().id(),
              dryRun
                  ? " (dry run: nothing deleted)"
                  : "; files only it kept are removed by 'lockstep table remove-orphan-files'");
        }
      }
      return 0;
    }
  }

  @Command(
      name = "tags",
      mixinStandardHelpOptions = true,
      description =
          "List the tags: name, snapshot, kind, time, and whether the snapshot itself is"
              + " still retained.")
  static final class Tags implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(false)) {
        FileStoreTable table = opened.table();
        List<TagManager.Tag> tags = new TagManager(table).tags();
        if (json) {
          ObjectNode node = Json.object().put("table", target.table);
          ArrayNode list = node.putArray("tags");
          for (TagManager.Tag t : tags) {
            list.addObject()
                .put("name", t.name())
                .put("snapshot", t.snapshot().id())
                .put("kind", t.snapshot().commitKind().name())
                .put("time", Instant.ofEpochMilli(t.snapshot().timeMillis()).toString())
                .put("snapshotRetained", table.snapshotManager().log().exists(t.snapshot().id()));
          }
          out.println(Json.write(node));
          return 0;
        }
        if (tags.isEmpty()) {
          out.println("no tags ('lockstep table create-tag --name NAME' creates one)");
          return 0;
        }
        int width = Math.max(4, tags.stream().mapToInt(t -> t.name().length()).max().orElse(4));
        String row = "%-" + width + "s  %8s  %-9s  %-24s  %s%n";
        StringBuilder sb =
            new StringBuilder(
                String.format(row, "name", "snapshot", "kind", "time", "snapshot retained"));
        for (TagManager.Tag t : tags) {
          sb.append(
              String.format(
                  row,
                  t.name(),
                  t.snapshot().id(),
                  t.snapshot().commitKind(),
                  Instant.ofEpochMilli(t.snapshot().timeMillis()),
                  table.snapshotManager().log().exists(t.snapshot().id())
                      ? "yes"
                      : "no (expired; the tag keeps its files)"));
        }
        out.print(sb);
        out.flush();
      }
      return 0;
    }
  }

  @Command(
      name = "files",
      mixinStandardHelpOptions = true,
      description =
          "List the live data files of a snapshot, per partition and bucket, with"
              + " level, rows and size.")
  static final class Files implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--snapshot", paramLabel = "ID", description = "The snapshot (default: latest)")
    Long snapshot;

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(false)) {
        FileStoreTable table = opened.table();
        OptionalLong id =
            snapshot != null ? OptionalLong.of(snapshot) : table.snapshotManager().latestId();
        if (id.isEmpty()) {
          out.println(
              json
                  ? Json.write(
                      Json.object()
                          .put("table", target.table)
                          .putNull("snapshot")
                          .set("files", Json.object().arrayNode()))
                  : "no snapshots yet");
          return 0;
        }
        Snapshot s = TableDiagnosis.snapshot(table, id.getAsLong());
        List<ManifestEntry> files;
        try {
          files = new ArrayList<>(table.store().liveFiles(s).values());
        } catch (IOException | RuntimeException e) {
          throw TableDiagnosis.explain(table, s, null, e);
        }
        files.sort(
            Comparator.comparing(ManifestEntry::partition)
                .thenComparingInt(ManifestEntry::bucket)
                .thenComparingInt(e -> e.file().level())
                .thenComparing(e -> e.file().fileName()));
        long bytes = files.stream().mapToLong(e -> e.file().fileSize()).sum();
        long rows = files.stream().mapToLong(e -> e.file().rowCount()).sum();
        if (json) {
          ObjectNode node =
              Json.object()
                  .put("table", target.table)
                  .put("snapshot", s.id())
                  .put("bytes", bytes)
                  .put("rows", rows);
          ArrayNode list = node.putArray("files");
          for (ManifestEntry e : files) {
            list.addObject()
                .put("partition", e.partition())
                .put("bucket", e.bucket())
                .put("level", e.file().level())
                .put("rows", e.file().rowCount())
                .put("bytes", e.file().fileSize())
                .put("file", e.file().fileName());
          }
          out.println(Json.write(node));
          return 0;
        }
        int width =
            Math.max(9, files.stream().mapToInt(e -> e.partition().length()).max().orElse(9));
        String row = "%-" + width + "s  %6s  %5s  %10s  %12s  %s%n";
        StringBuilder sb =
            new StringBuilder(
                String.format(
                    "snapshot %d of %s: %d live file(s)," + " %d bytes, %d row(s) in files%n",
                    s.id(), target.table, files.size(), bytes, rows));
        sb.append(String.format(row, "partition", "bucket", "level", "rows", "bytes", "file"));
        for (ManifestEntry e : files) {
          sb.append(
              String.format(
                  row,
                  e.partition().isEmpty() ? "-" : e.partition(),
                  e.bucket(),
                  e.file().level(),
                  e.file().rowCount(),
                  e.file().fileSize(),
                  e.file().fileName()));
        }
        out.print(sb);
        out.flush();
      }
      return 0;
    }
  }

  @Command(
      name = "drop",
      mixinStandardHelpOptions = true,
      description =
          "Drop the table from the warehouse (its schema); with --purge also delete"
              + " every snapshot and data file. Stop its writers first.")
  static final class Drop implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--purge", description = "Also delete the table's directory and every file")
    boolean purge;

    @Option(names = "--dry-run", description = "Say what would be deleted; delete nothing")
    boolean dryRun;

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.openCatalog(!dryRun)) {
        Identifier id = target.identifier();
        FileIO io = opened.fileIO();
        Path path = opened.catalog().tablePath(id);
        boolean exists = opened.catalog().tableExists(id);
        boolean leftovers = !exists && io.exists(path);
        if (!exists && !(purge && leftovers)) {
          throw new UserError(
              "table "
                  + target.table
                  + " does not exist in "
                  + target.warehouse
                  + (leftovers
                      ? "; its files are still under "
                          + path
                          + " (drop it with --purge to"
                          + " delete them)"
                      : "; check --warehouse and --table"));
        }
        long[] count = new long[2];
        count(io, path, count);
        if (!dryRun) {
          if (purge) {
            if (exists) {
              opened.catalog().dropTable(id);
            } else {
              io.delete(path, true);
            }
          } else {
            io.delete(path.child("schema"), true);
          }
        }
        if (json) {
          out.println(
              Json.write(
                  Json.object()
                      .put("table", target.table)
                      .put("path", path.toString())
                      .put("purge", purge)
                      .put("files", count[0])
                      .put("bytes", count[1])
                      .put("dryRun", dryRun)));
        } else if (purge) {
          out.printf(
              "%s %s%s: %d file(s), %d bytes under %s%s%n",
              dryRun ? "would drop and purge" : "dropped and purged",
              target.table,
              exists ? "" : " (dropped before)",
              count[0],
              count[1],
              path,
              dryRun ? " (dry run: nothing deleted)" : " deleted");
        } else {
          out.printf(
              "%s %s from %s; its %d file(s), %d bytes, stay under %s (delete them with"
                  + " 'lockstep table drop --purge')%s%n",
              dryRun ? "would drop" : "dropped",
              target.table,
              target.warehouse,
              count[0],
              count[1],
              path,
              dryRun ? " (dry run: nothing deleted)" : "");
        }
      }
      return 0;
    }

    private static void count(FileIO io, Path dir, long[] count) throws IOException {
      if (!io.exists(dir)) {
        return;
      }
      for (FileStatus status : io.list(dir)) {
        if (status.directory()) {
          count(io, status.path(), count);
        } else {
          count[0]++;
          count[1] += status.length();
        }
      }
    }
  }
}
