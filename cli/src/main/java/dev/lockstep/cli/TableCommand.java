package dev.lockstep.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.engine.catalog.TableExistsException;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableRead;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.DamagedFileException;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lockstep table ...}: create, write, read and maintain one table of a warehouse. Commands
 * that write check the options, the store and the lock first ({@link Preflight}) and parse all
 * their input before writing anything.
 */
@Command(
    name = "table",
    mixinStandardHelpOptions = true,
    description = "Create, write, read and maintain a table.",
    subcommands = {
      TableCommand.Create.class,
      TableDataCommands.Write.class,
      TableDataCommands.Read.class,
      TableDataCommands.Count.class,
      TableChangelogCommands.Changelog.class,
      TableChangelogCommands.Describe.class,
      TableCommand.Snapshots.class,
      TableMaintenanceCommands.Compact.class,
      TableMaintenanceCommands.ExpireSnapshots.class,
      TableMaintenanceCommands.RemoveOrphanFiles.class,
      TableDataCommands.Overwrite.class,
      TableOperatorCommands.Check.class,
      TableOperatorCommands.Files.class,
      TableOperatorCommands.RollbackCommand.class,
      TableOperatorCommands.CreateTag.class,
      TableOperatorCommands.DeleteTag.class,
      TableOperatorCommands.Tags.class,
      TableOperatorCommands.Drop.class
    })
final class TableCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Create a table. -o options that are table options (bucket, write-only,"
              + " snapshot.*, ...) are stored with it.")
  static final class Create implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(
        names = "--schema",
        required = true,
        paramLabel = "COLUMNS",
        description = "Columns, e.g. \"k INT NOT NULL, v BIGINT, s STRING, amount DECIMAL(12, 2)\"")
    String schema;

    @Option(
        names = "--primary-key",
        split = ",",
        paramLabel = "COLUMN",
        description = "Primary-key columns (must include the partition keys); none: append table")
    List<String> primaryKey;

    @Option(
        names = "--partition-keys",
        split = ",",
        paramLabel = "COLUMN",
        description = "Partition columns")
    List<String> partitionKeys;

    @Option(
        names = "--bucket",
        paramLabel = "N",
        description =
            "Buckets per partition (the table option 'bucket'): 1 or more, or -1 for dynamic"
                + " buckets (primary-key tables; see the dynamic-bucket.* options)")
    Integer bucket;

    @Override
    public Integer call() throws Exception {
      Schema.Builder builder = SchemaText.parse(schema);
      if (partitionKeys != null) {
        builder.partitionKeys(partitionKeys.toArray(String[]::new));
      }
      if (primaryKey != null) {
        builder.primaryKey(primaryKey.toArray(String[]::new));
      }
      Map<String, String> tableOptions = new LinkedHashMap<>();
      target
          .options()
          .forEach(
              (k, v) -> {
                if (OptionKeys.isTableOption(k)) {
                  tableOptions.put(k, v);
                }
              });
      if (bucket != null) {
        String given = tableOptions.get(CoreOptions.BUCKET);
        if (given != null && !given.trim().equals(bucket.toString())) {
          throw new UserError(
              "--bucket "
                  + bucket
                  + " and -o "
                  + CoreOptions.BUCKET
                  + "="
                  + given
                  + " disagree; give one of them");
        }
        tableOptions.put(CoreOptions.BUCKET, bucket.toString());
      }
      Schema built;
      try {
        built = builder.options(tableOptions).build();
      } catch (IllegalArgumentException e) {
        throw new UserError("the table definition is invalid: " + e.getMessage());
      }
      try (TableTarget.Opened opened = target.openCatalog(true)) {
        opened.catalog().createTable(target.identifier(), built).close();
      } catch (TableExistsException e) {
        throw new UserError(
            "table "
                + target.table
                + " already exists in "
                + target.warehouse
                + "; pick another --table");
      }
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          "created %s in %s (%s)%s%n",
          target.table,
          target.warehouse,
          schema,
          tableOptions.isEmpty() ? "" : " with " + tableOptions);
      return 0;
    }
  }

  @Command(
      name = "snapshots",
      mixinStandardHelpOptions = true,
      description =
          "List the newest snapshots: id, kind, commit user, identifier, time, rows (live"
              + " rows: a key written again counts once, a deleted one not at all), delta (the change"
              + " in rows), and the fencing token of the lock lease each was committed under ('-'"
              + " without a lock).")
  static final class Snapshots implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(
        names = "--limit",
        defaultValue = "20",
        paramLabel = "N",
        description =
            "Show the newest N snapshots; 0 for all (default: ${DEFAULT-VALUE}). A"
                + " primary-key table is read once per snapshot shown to count its live rows")
    int limit;

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      if (limit < 0) {
        throw new UserError("--limit must be 0 (all) or more");
      }
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(false)) {
        FileStoreTable table = opened.table();
        OptionalLong earliest = table.snapshotManager().earliestId();
        OptionalLong latest = table.snapshotManager().latestId();
        if (latest.isEmpty()) {
          out.println(
              json
                  ? Json.write(
                      Json.object()
                          .put("table", target.table)
                          .put("total", 0)
                          .set("snapshots", Json.object().arrayNode()))
                  : "no snapshots yet");
          return 0;
        }
        long first =
            limit == 0
                ? earliest.getAsLong()
                : Math.max(earliest.getAsLong(), latest.getAsLong() - limit + 1);
        // A damaged snapshot other than the latest is listed as such, with its damage (the
        // command's warning line names it); its successor's delta is against the one before it.
        List<Snapshot> shown = new ArrayList<>();
        Map<Long, String> damaged = new LinkedHashMap<>();
        int width = 4;
        for (long id = first; id <= latest.getAsLong(); id++) {
          if (id < latest.getAsLong()) {
            try {
              table.snapshotManager().get(id);
            } catch (DamagedFileException d) {
              table.snapshotManager().skippedDamage().note(d);
              damaged.put(id, d.damage());
              continue;
            } catch (FileNotFoundException gone) {
              if (id >= table.snapshotManager().earliestId().orElse(Long.MAX_VALUE)) {
                String file = table.snapshotManager().log().snapshotPath(id).toString();
                table.snapshotManager().skippedDamage().noteMissing("snapshot", file);
                damaged.put(id, "missing");
              } // else expired meanwhile
              continue;
            }
          }
          Snapshot s = TableDiagnosis.snapshot(table, id);
          shown.add(s);
          width = Math.max(width, s.commitUser().length());
        }
        int listed = shown.size() + damaged.size();
        // The live rows before the first one shown, for its delta.
        long before = 0;
        if (first > earliest.getAsLong()) {
          try {
            before = liveRows(table, table.snapshotManager().get(first - 1));
          } catch (DamagedFileException d) {
            table.snapshotManager().skippedDamage().note(d);
          } catch (FileNotFoundException gone) {
            // Expired meanwhile, or a gap the listing noted: the delta counts from 0.
          }
        }
        long total = latest.getAsLong() - earliest.getAsLong() + 1;
        if (json) {
          ObjectNode node = Json.object().put("table", target.table).put("total", total);
          ArrayNode list = node.putArray("snapshots");
          for (Snapshot s : shown) {
            for (Map.Entry<Long, String> d : damagedBelow(damaged, s.id())) {
              list.addObject().put("id", d.getKey()).put("damage", d.getValue());
            }
            long rows = liveRows(table, s);
            list.addObject()
                .put("id", s.id())
                .put("kind", s.commitKind().name())
                .put("commitUser", s.commitUser())
                .put("commitIdentifier", s.commitIdentifier())
                .put("time", Instant.ofEpochMilli(s.timeMillis()).toString())
                .put("rows", rows)
                .put("delta", rows - before)
                .put("fileRecords", s.totalRecordCount())
                .put("fencingToken", s.fencing() == null ? null : s.fencing().token());
            before = rows;
          }
          out.println(Json.write(node));
          return 0;
        }
        String row = "%8s  %-9s  %-" + width + "s  %20s  %-24s  %12s  %12s  %20s%n";
        StringBuilder sb =
            new StringBuilder(
                String.format(
                    row,
                    "id",
                    "kind",
                    "user",
                    "identifier",
                    "time",
                    "rows",
                    "delta",
                    "fencing token"));
        for (Snapshot s : shown) {
          for (Map.Entry<Long, String> d : damagedBelow(damaged, s.id())) {
            sb.append(
                String.format(row, d.getKey(), "DAMAGED", d.getValue(), "-", "-", "-", "-", "-"));
          }
          long rows = liveRows(table, s);
          sb.append(
              String.format(
                  row,
                  s.id(),
                  s.commitKind(),
                  s.commitUser(),
                  s.commitIdentifier(),
                  Instant.ofEpochMilli(s.timeMillis()),
                  rows,
                  rows - before,
                  s.fencing() == null ? "-" : s.fencing().token()));
          before = rows;
        }
        if (listed < total) {
          sb.append(
              String.format(
                  "(the newest %d of %d snapshots; --limit 0 shows all)%n", listed, total));
        }
        out.print(sb);
        out.flush();
      }
      return 0;
    }

    /** Takes the damaged snapshots below {@code id} out of {@code damaged}, in order. */
    private static List<Map.Entry<Long, String>> damagedBelow(Map<Long, String> damaged, long id) {
      List<Map.Entry<Long, String>> below = new ArrayList<>();
      for (var it = damaged.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Long, String> d = it.next();
        if (d.getKey() < id) {
          below.add(Map.entry(d.getKey(), d.getValue()));
          it.remove();
        }
      }
      return below;
    }

    /**
     * The rows a read of {@code s} returns. In an append table every row in a live file is live; in
     * a primary-key table older versions of a key and deleted keys are merged away, so its key
     * columns are read.
     */
    private static long liveRows(FileStoreTable table, Snapshot s) throws IOException {
      if (!table.schema().hasPrimaryKey()) {
        return s.totalRecordCount();
      }
      TableRead read =
          table.newRead().withProjection(table.schema().primaryKeys().toArray(String[]::new));
      List<Split> splits = null;
      long[] rows = {0};
      try {
        splits = table.newScan().withSnapshot(s.id()).plan().splits();
        for (Split split : splits) {
          read.forEach(split, row -> rows[0]++);
        }
      } catch (IOException | RuntimeException e) {
        throw TableDiagnosis.explain(table, s, splits, e);
      }
      return rows[0];
    }
  }
}
