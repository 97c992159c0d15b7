package dev.lockstep.cli;

import dev.lockstep.engine.catalog.TableExistsException;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.PrintWriter;
import java.time.Instant;
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
 * that write check the options, the store and the lock first ({@link Preflight}) and parse all their
 * input before writing anything.
 */
@Command(name = "table", mixinStandardHelpOptions = true,
    description = "Create, write, read and maintain a table.",
    subcommands = {TableCommand.Create.class, TableDataCommands.Write.class,
        TableDataCommands.Read.class, TableCommand.Snapshots.class,
        TableMaintenanceCommands.Compact.class, TableMaintenanceCommands.ExpireSnapshots.class,
        TableMaintenanceCommands.RemoveOrphanFiles.class, TableDataCommands.Overwrite.class})
final class TableCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = "Create a table. -o options that are table options (bucket, write-only,"
          + " snapshot.*, ...) are stored with it.")
  static final class Create implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    TableTarget target = new TableTarget();

    @Option(names = "--schema", required = true, paramLabel = "COLUMNS",
        description = "Columns, e.g. \"k INT NOT NULL, v BIGINT, s STRING, amount DECIMAL(12, 2)\"")
    String schema;

    @Option(names = "--primary-key", split = ",", paramLabel = "COLUMN",
        description = "Primary-key columns (must include the partition keys); none: append table")
    List<String> primaryKey;

    @Option(names = "--partition-keys", split = ",", paramLabel = "COLUMN",
        description = "Partition columns")
    List<String> partitionKeys;

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
      target.options().forEach((k, v) -> {
        if (OptionKeys.isTableOption(k)) {
          tableOptions.put(k, v);
        }
      });
      Schema built;
      try {
        built = builder.options(tableOptions).build();
      } catch (IllegalArgumentException e) {
        throw new UserError("the table definition is invalid: " + e.getMessage());
      }
      try (TableTarget.Opened opened = target.openCatalog(true)) {
        opened.catalog().createTable(target.identifier(), built).close();
      } catch (TableExistsException e) {
        throw new UserError("table " + target.table + " already exists in " + target.warehouse
            + "; pick another --table");
      }
      PrintWriter out = spec.commandLine().getOut();
      out.printf("created %s in %s (%s)%s%n", target.table, target.warehouse, schema,
          tableOptions.isEmpty() ? "" : " with " + tableOptions);
      return 0;
    }
  }

  @Command(name = "snapshots", mixinStandardHelpOptions = true,
      description = "List the snapshots: id, kind, commit user, identifier, time, records, and"
          + " the fencing token of the lock lease each was committed under ('-' without a lock).")
  static final class Snapshots implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    TableTarget target = new TableTarget();

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(false)) {
        FileStoreTable table = opened.table();
        OptionalLong earliest = table.snapshotManager().earliestId();
        OptionalLong latest = table.snapshotManager().latestId();
        if (latest.isEmpty()) {
          out.println("no snapshots yet");
          return 0;
        }
        java.util.List<Snapshot> all = new java.util.ArrayList<>();
        int width = 4;
        for (long id = earliest.getAsLong(); id <= latest.getAsLong(); id++) {
          Snapshot s = TableDiagnosis.snapshot(table, id);
          all.add(s);
          width = Math.max(width, s.commitUser().length());
        }
        String row = "%8s  %-9s  %-" + width + "s  %20s  %-24s  %12s  %12s  %20s%n";
        StringBuilder sb = new StringBuilder(String.format(row, "id", "kind", "user", "identifier",
            "time", "records", "delta", "fencing token"));
        for (Snapshot s : all) {
          sb.append(String.format(row, s.id(), s.commitKind(), s.commitUser(),
              s.commitIdentifier(), Instant.ofEpochMilli(s.timeMillis()), s.totalRecordCount(),
              s.deltaRecordCount(), s.fencing() == null ? "-" : s.fencing().token()));
        }
        out.print(sb);
        out.flush();
      }
      return 0;
    }
  }
}
