package dev.lockstep.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Change;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.snapshot.ConsumerManager;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.DeletionVectorOptions;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.options.ConfigOption;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lockstep table read --follow}, {@code table changelog} and {@code table describe}: the
 * streaming side of a table (engine {@code StreamTableScan}, docs/engine.md "Changelog and
 * streaming reads").
 */
final class TableChangelogCommands {

  private TableChangelogCommands() {}

  /** The header of printed changes: the snapshot, the row kind, then the table's columns. */
  static List<String> header(FileStoreTable table) {
    List<String> names = new ArrayList<>();
    names.add("_SNAPSHOT");
    names.add(TableRows.ROW_KIND_COLUMN);
    table.schema().fields().stream().map(DataField::name).forEach(names::add);
    return names;
  }

  static void print(StringBuilder sb, Changes changes) {
    for (Change change : changes.rows()) {
      List<Object> values = new ArrayList<>();
      values.add(changes.snapshotId());
      values.add(change.kind().shortString());
      GenericRow row = change.row();
      for (int i = 0; i < row.size(); i++) {
        values.add(row.get(i));
      }
      TableRows.appendRecord(sb, values);
    }
  }

  static String json(FileStoreTable table, Changes changes) {
    StringBuilder sb = new StringBuilder();
    List<DataField> fields = table.schema().fields();
    for (Change change : changes.rows()) {
      ObjectNode node = Json.object();
      node.put("snapshot", changes.snapshotId());
      node.put("kind", change.kind().shortString());
      ObjectNode row = node.putObject("row");
      for (int i = 0; i < fields.size(); i++) {
        Object value = change.row().get(i);
        row.put(fields.get(i).name(), value == null ? null : value.toString());
      }
      sb.append(Json.write(node)).append('\n');
    }
    return sb.toString();
  }

  /** Options of {@code read --follow}, a mixin of {@code table read}. */
  static final class FollowOptions {
    @Option(
        names = "--follow",
        description =
            "Stream the changes as they commit, with row kinds (_SNAPSHOT, _ROW_KIND, then the"
                + " columns): first the latest snapshot in full (+I), then each new snapshot's"
                + " changes; stops on Ctrl-C")
    boolean follow;

    @Option(
        names = "--from-snapshot",
        paramLabel = "ID",
        description = "--follow: start with the changes of this snapshot instead")
    Long fromSnapshot;

    @Option(
        names = "--consumer-id",
        paramLabel = "ID",
        description =
            "--follow: record the position in consumer/consumer-ID after each snapshot and resume"
                + " there; expiration keeps what it has not read")
    String consumerId;

    @Option(
        names = "--max-snapshots",
        paramLabel = "N",
        description = "--follow: stop after printing N snapshots")
    Integer maxSnapshots;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        description = "--follow: stop after this long (default: until stopped)")
    Duration timeout;

    @Option(
        names = "--interval",
        defaultValue = "1s",
        description = "--follow: how often to look for new snapshots (default: ${DEFAULT-VALUE})")
    Duration interval;

    boolean given() {
      return fromSnapshot != null || consumerId != null || maxSnapshots != null || timeout != null;
    }

    /** Follows {@code table}, printing to {@code out}; returns the exit code. */
    int run(FileStoreTable table, PrintWriter out) throws IOException, InterruptedException {
      if (maxSnapshots != null && maxSnapshots < 1) {
        throw new UserError("--max-snapshots must be at least 1");
      }
      Map<String, String> options = new HashMap<>();
      if (fromSnapshot != null) {
        if (fromSnapshot < 1) {
          throw new UserError("--from-snapshot must be a snapshot id, at least 1");
        }
        options.put(ChangelogOptions.SCAN_MODE.key(), "from-snapshot");
        options.put(ChangelogOptions.SCAN_SNAPSHOT_ID.key(), String.valueOf(fromSnapshot));
      }
      if (consumerId != null) {
        options.put(ChangelogOptions.CONSUMER_ID.key(), consumerId);
      }
      StreamTableScan stream;
      try {
        stream = table.copyWithOptions(options).newStreamScan();
      } catch (IllegalArgumentException e) {
        throw new UserError(e.getMessage());
      }
      StringBuilder header = new StringBuilder();
      TableRows.appendRecord(header, header(table));
      out.print(header);
      out.flush();
      long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
      int printed = 0;
      while (true) {
        Optional<Changes> next;
        try {
          next = stream.next();
        } catch (StreamTableScan.SnapshotExpiredException e) {
          throw new UserError(e.getMessage());
        }
        if (next.isPresent()) {
          StringBuilder sb = new StringBuilder();
          print(sb, next.get());
          out.print(sb);
          out.flush();
          stream.checkpoint();
          printed++;
          if (maxSnapshots != null && printed >= maxSnapshots) {
            return 0;
          }
          continue;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return 0;
        }
        Thread.sleep(Math.max(1, Math.min(interval.toMillis(), left / 1_000_000)));
      }
    }
  }

  @Command(
      name = "changelog",
      mixinStandardHelpOptions = true,
      description =
          "Print the changes of snapshots FROM..TO with their row kinds (_SNAPSHOT, _ROW_KIND,"
              + " then the columns): the changelog files (changelog-producer input or lookup), the"
              + " upserts of each APPEND snapshot (none), the new rows (append tables); COMPACT"
              + " snapshots without changelog print nothing")
  static final class Changelog implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--from", required = true, paramLabel = "N", description = "First snapshot")
    long from;

    @Option(names = "--to", paramLabel = "M", description = "Last snapshot (default: the latest)")
    Long to;

    @Option(names = "--json", description = "One JSON object per row")
    boolean json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(false)) {
        FileStoreTable table = opened.table();
        OptionalLong latest = table.snapshotManager().latestId();
        if (latest.isEmpty()) {
          throw new UserError(target.table + " has no snapshot yet; write to it first");
        }
        long last = to == null ? latest.getAsLong() : to;
        if (from < 1 || last < from) {
          throw new UserError(
              "--from "
                  + from
                  + " --to "
                  + last
                  + " is no range of snapshot ids; give 1 <= N <= M");
        }
        if (last > latest.getAsLong()) {
          throw new UserError(
              "--to "
                  + last
                  + ": the latest snapshot of "
                  + target.table
                  + " is "
                  + latest.getAsLong()
                  + "; give at most that");
        }
        StreamTableScan stream = table.newStreamScan().restore(from);
        StringBuilder sb = new StringBuilder();
        if (!json) {
          TableRows.appendRecord(sb, header(table));
        }
        while (true) {
          Optional<Changes> next;
          try {
            next = stream.next();
          } catch (StreamTableScan.SnapshotExpiredException e) {
            throw new UserError(e.getMessage());
          }
          if (next.isEmpty() || next.get().snapshotId() > last) {
            break;
          }
          if (json) {
            sb.append(json(table, next.get()));
          } else {
            print(sb, next.get());
          }
        }
        out.print(sb);
        out.flush();
      }
      return 0;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description =
          "The table's columns, keys, bucket mode (for dynamic buckets, bucket = -1, the"
              + " dynamic-bucket.* values in effect), stored options, the effective changelog and"
              + " streaming options (changelog-producer, changelog retention, scan.mode), and its"
              + " consumers")
  static final class Describe implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--json", description = "One line of JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(false)) {
        FileStoreTable table = opened.table();
        Map<String, String> effective = new TreeMap<>();
        Map<String, String> all = table.options().all().asMap();
        for (ConfigOption<?> option : ChangelogOptions.OPTIONS) {
          effective.put(option.key(), valueOf(option, all));
        }
        Map<String, Long> consumers = new ConsumerManager(table.fileIO(), table.path()).consumers();
        if (json) {
          ObjectNode node = Json.object();
          node.put("table", target.table);
          ArrayNode columns = node.putArray("columns");
          for (DataField f : table.schema().fields()) {
            columns.addObject().put("name", f.name()).put("type", f.type().toString());
          }
          ArrayNode pk = node.putArray("primaryKey");
          table.schema().primaryKeys().forEach(pk::add);
          ArrayNode parts = node.putArray("partitionKeys");
          table.schema().partitionKeys().forEach(parts::add);
          node.put("schema", table.schema().id());
          node.put("bucket", table.options().dynamicBucket() ? -1 : table.options().bucket());
          if (table.options().dynamicBucket()) {
            ObjectNode dynamic = node.putObject("dynamicBucket");
            bucketMode(table).forEach(dynamic::put);
          }
          ObjectNode stored = node.putObject("options");
          new TreeMap<>(table.schema().options()).forEach(stored::put);
          ObjectNode changelog = node.putObject("changelog");
          effective.forEach(changelog::put);
          node.put(DeletionVectorOptions.ENABLED.key(), DeletionVectorOptions.enabled(table));
          ObjectNode cons = node.putObject("consumers");
          consumers.forEach(cons::put);
          out.println(Json.write(node));
        } else {
          out.println("table: " + target.table);
          out.println("schema: " + table.schema().id());
          out.println("columns:");
          for (DataField f : table.schema().fields()) {
            out.println("  " + f.name() + " " + f.type());
          }
          out.println(
              "primary key: "
                  + (table.schema().primaryKeys().isEmpty()
                      ? "none (append table)"
                      : String.join(", ", table.schema().primaryKeys())));
          out.println(
              "partition keys: "
                  + (table.schema().partitionKeys().isEmpty()
                      ? "none"
                      : String.join(", ", table.schema().partitionKeys())));
          if (table.options().dynamicBucket()) {
            out.println("bucket: -1 (dynamic)");
            bucketMode(table).forEach((k, v) -> out.println("  " + k + ": " + v));
          } else {
            out.println("bucket: " + table.options().bucket() + " (fixed)");
          }
          out.println("options:");
          new TreeMap<>(table.schema().options())
              .forEach((k, v) -> out.println("  " + k + " = " + v));
          out.println("changelog and streaming:");
          effective.forEach((k, v) -> out.println("  " + k + " = " + v));
          out.println(
              "deletion vectors: "
                  + DeletionVectorOptions.ENABLED.key()
                  + " = "
                  + DeletionVectorOptions.enabled(table)
                  + (DeletionVectorOptions.enabled(table)
                      ? " (reads apply vectors, no merge)"
                      : ""));
          out.println("consumers:" + (consumers.isEmpty() ? " none" : ""));
          consumers.forEach((k, v) -> out.println("  " + k + ": next snapshot " + v));
        }
        out.flush();
      }
      return 0;
    }

    /** The dynamic-bucket values in effect, in a table with {@code bucket = -1}. */
    private static Map<String, String> bucketMode(FileStoreTable table) {
      CoreOptions options = table.options();
      Map<String, String> mode = new java.util.LinkedHashMap<>();
      mode.put(
          CoreOptions.DYNAMIC_BUCKET_TARGET_ROW_NUM,
          Long.toString(options.dynamicBucketTargetRowNum()));
      mode.put(
          CoreOptions.DYNAMIC_BUCKET_INITIAL_BUCKETS,
          Long.toString(options.dynamicBucketInitialBuckets()));
      String max = table.schema().options().get(CoreOptions.DYNAMIC_BUCKET_MAX_BUCKETS);
      mode.put(
          CoreOptions.DYNAMIC_BUCKET_MAX_BUCKETS,
          max == null || max.trim().equals("-1")
              ? "-1 (no limit but " + CoreOptions.DYNAMIC_BUCKET_LIMIT + ")"
              : max.trim());
      return mode;
    }

    private static <T> String valueOf(ConfigOption<T> option, Map<String, String> all) {
      T value = option.read(all);
      if (value != null) {
        return option.format(value);
      }
      return option.hasDefaultText() ? option.defaultText().replace("`", "") : "none";
    }
  }
}
