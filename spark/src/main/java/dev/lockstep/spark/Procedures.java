package dev.lockstep.spark;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.maintenance.ExpireReport;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.operation.PartitionOverwrite;
import dev.lockstep.engine.operation.Rollback;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The procedures of {@code CALL <catalog>.sys.<name>(...)}, with Apache Paimon's names and
 * arguments where Paimon has them. Each returns a result table.
 *
 * <ul>
 *   <li>{@code expire_snapshots(table, retain_max, retain_min, older_than, max_deletes, dry_run)}
 *   <li>{@code remove_orphan_files(table, older_than, dry_run)}
 *   <li>{@code compact(table, partitions, compact_strategy)}
 *   <li>{@code rollback(table, snapshot)} (or {@code version}: a snapshot id or a tag): rewrites
 *       the table's contents at that snapshot as a new OVERWRITE snapshot; history is kept (the
 *       engine's {@code Rollback}, shared with {@code lockstep table rollback}).
 * </ul>
 */
final class Procedures {

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd[ HH:mm[:ss][.SSS]]", Locale.ROOT);

  private Procedures() {}

  /** A procedure's result. */
  record Result(StructType schema, List<Row> rows) {}

  private record Spec(String name, List<String> parameters, List<String> required) {}

  private static final Map<String, Spec> SPECS = new LinkedHashMap<>();

  static {
    spec(
        "expire_snapshots",
        List.of("table", "retain_max", "retain_min", "older_than", "max_deletes", "dry_run"),
        List.of("table"));
    spec("remove_orphan_files", List.of("table", "older_than", "dry_run"), List.of("table"));
    spec("compact", List.of("table", "partitions", "compact_strategy"), List.of("table"));
    spec("rollback", List.of("table", "snapshot", "version"), List.of("table"));
  }

  private static void spec(String name, List<String> parameters, List<String> required) {
    SPECS.put(name, new Spec(name, parameters, required));
  }

  static Result run(SparkSession session, LockstepCatalog catalog, CallStatement call) {
    Spec spec = SPECS.get(call.procedure());
    if (spec == null) {
      throw new IllegalArgumentException(
          "Unknown procedure "
              + call.name()
              + "; Lockstep has "
              + String.join(", ", SPECS.keySet()));
    }
    Map<String, Object> args = bind(spec, call);
    Identifier id = table(args);
    try (FileStoreTable table = catalog.openTable(id)) {
      switch (spec.name()) {
        case "expire_snapshots":
          return expireSnapshots(session, table, args);
        case "remove_orphan_files":
          return removeOrphanFiles(session, table, args);
        case "compact":
          return compact(table, args);
        default:
          return rollback(table, args);
      }
    } catch (dev.lockstep.engine.catalog.TableNotFoundException e) {
      throw new IllegalArgumentException(
          call.name()
              + ": table "
              + id.fullName()
              + " does not exist in catalog "
              + catalog.name());
    } catch (IOException e) {
      throw new UncheckedIOException(call.name() + " failed: " + e.getMessage(), e);
    }
  }

  private static Map<String, Object> bind(Spec spec, CallStatement call) {
    Map<String, Object> args = new LinkedHashMap<>();
    if (call.positional().size() > spec.parameters().size()) {
      throw new IllegalArgumentException(
          call.name()
              + " takes at most "
              + spec.parameters().size()
              + " arguments "
              + spec.parameters()
              + ", got "
              + call.positional().size());
    }
    for (int i = 0; i < call.positional().size(); i++) {
      args.put(spec.parameters().get(i), call.positional().get(i));
    }
    for (Map.Entry<String, Object> e : call.named().entrySet()) {
      if (!spec.parameters().contains(e.getKey())) {
        throw new IllegalArgumentException(
            call.name()
                + " has no argument '"
                + e.getKey()
                + "'; its arguments are "
                + spec.parameters());
      }
      if (args.containsKey(e.getKey())) {
        throw new IllegalArgumentException(
            call.name() + ": argument '" + e.getKey() + "' is given twice");
      }
      args.put(e.getKey(), e.getValue());
    }
    for (String r : spec.required()) {
      if (args.get(r) == null) {
        throw new IllegalArgumentException(
            call.name() + " needs the argument '" + r + "' (e.g. " + r + " => 'db.table')");
      }
    }
    return args;
  }

  private static Identifier table(Map<String, Object> args) {
    String name = string(args, "table");
    String[] parts = name.split("\\.");
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      throw new IllegalArgumentException(
          "table => '" + name + "': name the table as" + " 'database.table'");
    }
    return new Identifier(parts[0], parts[1]);
  }

  private static String string(Map<String, Object> args, String key) {
    Object v = args.get(key);
    return v == null ? null : v.toString();
  }

  private static Integer integer(Map<String, Object> args, String key) {
    Object v = args.get(key);
    if (v == null) {
      return null;
    }
    try {
      long l = v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
      return Math.toIntExact(l);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("Argument '" + key + "' must be an integer, got " + v);
    }
  }

  private static boolean bool(Map<String, Object> args, String key) {
    Object v = args.get(key);
    if (v == null) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    String s = v.toString().trim().toLowerCase(Locale.ROOT);
    if (s.equals("true") || s.equals("false")) {
      return Boolean.parseBoolean(s);
    }
    throw new IllegalArgumentException("Argument '" + key + "' must be true or false, got " + v);
  }

  /** {@code older_than} as Paimon has it: a timestamp in the session time zone. */
  private static Duration olderThan(SparkSession session, Map<String, Object> args) {
    String text = string(args, "older_than");
    if (text == null) {
      return null;
    }
    LocalDateTime t;
    try {
      t =
          LocalDateTime.parse(
              text.trim(),
              new java.time.format.DateTimeFormatterBuilder()
                  .append(TIMESTAMP)
                  .parseDefaulting(java.time.temporal.ChronoField.HOUR_OF_DAY, 0)
                  .toFormatter(Locale.ROOT));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "older_than => '"
              + text
              + "' is not a timestamp;"
              + " write 'yyyy-MM-dd HH:mm:ss' (session time zone)");
    }
    ZoneId zone = ZoneId.of(session.sessionState().conf().sessionLocalTimeZone());
    long millis = t.atZone(zone).toInstant().toEpochMilli();
    Duration d = Duration.ofMillis(System.currentTimeMillis() - millis);
    return d.isNegative() ? Duration.ZERO : d;
  }

  private static Result expireSnapshots(
      SparkSession session, FileStoreTable table, Map<String, Object> args) throws IOException {
    SnapshotExpiration base = new SnapshotExpiration(table);
    MaintenanceOptions options =
        base.options()
            .with(
                integer(args, "retain_min"),
                integer(args, "retain_max"),
                olderThan(session, args),
                integer(args, "max_deletes"));
    SnapshotExpiration expiration = new SnapshotExpiration(table, options);
    ExpireReport r = bool(args, "dry_run") ? expiration.dryRun() : expiration.expire();
    StructType schema =
        new StructType()
            .add("deleted_snapshots_num", DataTypes.LongType, false)
            .add("first_expired", DataTypes.LongType, false)
            .add("last_expired", DataTypes.LongType, false)
            .add("earliest_snapshot", DataTypes.LongType, false)
            .add("deleted_data_files", DataTypes.LongType, false)
            .add("deleted_manifests", DataTypes.LongType, false)
            .add("deleted_bytes", DataTypes.LongType, false)
            .add("dry_run", DataTypes.BooleanType, false);
    return new Result(
        schema,
        List.of(
            RowFactory.create(
                r.expiredSnapshots(),
                r.firstExpired(),
                r.lastExpired(),
                r.earliestAfter(),
                (long) r.deletedDataFiles().size(),
                (long) r.deletedManifests().size(),
                r.deletedBytes(),
                r.dryRun())));
  }

  private static Result removeOrphanFiles(
      SparkSession session, FileStoreTable table, Map<String, Object> args) throws IOException {
    Duration olderThan = olderThan(session, args);
    if (olderThan == null) {
      olderThan = OrphanFilesCleaner.OLDER_THAN_DEFAULT;
    }
    boolean dryRun = bool(args, "dry_run");
    OrphanReport r = new OrphanFilesCleaner(table, olderThan, dryRun).clean();
    StructType schema =
        new StructType()
            .add("path", DataTypes.StringType, false)
            .add("bytes", DataTypes.LongType, false)
            .add("dry_run", DataTypes.BooleanType, false);
    List<Row> rows = new ArrayList<>();
    for (OrphanReport.RemovedFile f : r.removed()) {
      rows.add(RowFactory.create(f.path(), f.bytes(), dryRun));
    }
    return new Result(schema, rows);
  }

  /** {@code partitions => 'dt=2024-05-01,hh=1;dt=2024-05-02'}: OR of AND-ed column values. */
  static Predicate<String> partitions(FileStoreTable table, String text) {
    if (text == null || text.isBlank()) {
      return p -> true;
    }
    List<Predicate<String>> any = new ArrayList<>();
    for (String spec : text.split(";")) {
      Map<String, String> values = new LinkedHashMap<>();
      for (String kv : spec.split(",")) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(
              "partitions => '"
                  + text
                  + "': write"
                  + " 'col=value,col2=value;col=value' (';' between partitions)");
        }
        String column = kv.substring(0, eq).trim();
        if (!table.schema().partitionKeys().contains(column)) {
          throw new IllegalArgumentException(
              "partitions => '"
                  + text
                  + "': '"
                  + column
                  + "' is not a partition column of "
                  + table.fullName()
                  + " "
                  + table.schema().partitionKeys());
        }
        values.put(column, kv.substring(eq + 1).trim());
      }
      any.add(PartitionOverwrite.pathFilter(table, values));
    }
    return p -> any.stream().anyMatch(f -> f.test(p));
  }

  private static Result compact(FileStoreTable table, Map<String, Object> args) throws IOException {
    String strategy =
        Optional.ofNullable(string(args, "compact_strategy"))
            .orElse("full")
            .toLowerCase(Locale.ROOT);
    if (!strategy.equals("full") && !strategy.equals("minor")) {
      throw new IllegalArgumentException(
          "compact_strategy => '"
              + strategy
              + "': use 'full'"
              + " (every file of a bucket into one) or 'minor' (the universal pick)");
    }
    Predicate<String> filter = partitions(table, string(args, "partitions"));
    StructType schema =
        new StructType()
            .add("result", DataTypes.BooleanType, false)
            .add("snapshot_id", DataTypes.LongType, true);
    try (TableCompactor compactor =
        table.newCompactor("spark-compact-" + UUID.randomUUID()).withPartitionFilter(filter)) {
      Optional<CommitResult> r = compactor.compactOnce(strategy.equals("full"));
      if (r.isEmpty() || r.get().compactSnapshotId() < 0) {
        return new Result(schema, List.of(RowFactory.create(false, null)));
      }
      return new Result(schema, List.of(RowFactory.create(true, r.get().compactSnapshotId())));
    }
  }

  private static Result rollback(FileStoreTable table, Map<String, Object> args)
      throws IOException {
    Object target = args.get("snapshot") != null ? args.get("snapshot") : args.get("version");
    if (target == null) {
      throw new IllegalArgumentException(
          "rollback needs snapshot => <id> (or version => '<id>'" + " or version => '<tag>')");
    }
    Rollback rollback = new Rollback(table);
    Snapshot snapshot;
    String text = target.toString().trim();
    if (target instanceof Number n) {
      snapshot = rollback.snapshot(n.longValue());
    } else if (text.matches("[0-9]+")) {
      snapshot = rollback.snapshot(Long.parseLong(text));
    } else if (args.get("snapshot") == null) {
      snapshot = rollback.tag(text);
    } else {
      throw new IllegalArgumentException(
          "rollback: snapshot => '"
              + target
              + "' is not a"
              + " snapshot id; give a tag as version => '"
              + target
              + "'");
    }
    // The engine's rollback, as 'lockstep table rollback' runs it: the snapshot's rows rewritten
    // as one OVERWRITE of the whole table, history kept.
    Rollback.Result result = rollback.run(snapshot);
    StructType schema =
        new StructType()
            .add("previous_snapshot_id", DataTypes.LongType, false)
            .add("restored_snapshot_id", DataTypes.LongType, false)
            .add("current_snapshot_id", DataTypes.LongType, false);
    return new Result(
        schema,
        List.of(
            RowFactory.create(
                result.previousSnapshotId(),
                result.restoredSnapshotId(),
                result.currentSnapshotId())));
  }
}
