package dev.lockstep.cli;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.catalog.TableNotFoundException;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options every {@code lockstep table} command shares: the warehouse, the table and the catalog
 * options. Options are checked (unknown keys refused with the nearest known key) and, for commands
 * that write, the store, commit strategy and lock are checked by {@link Preflight} before anything
 * is written.
 */
final class TableTarget {

  @Option(
      names = "--warehouse",
      paramLabel = "URI",
      required = true,
      description = "Warehouse URI: a local path, file://, s3://, oss:// or hdfs://")
  String warehouse;

  @Option(
      names = "--table",
      paramLabel = "DB.TABLE",
      required = true,
      description = "The table, as database.table")
  String table;

  @Option(
      names = {"-o", "--option"},
      paramLabel = "KEY=VALUE",
      description = "A catalog or table option, repeatable (e.g. -o lock.enabled=true)")
  Map<String, String> options;

  /** The -o options, checked. */
  Map<String, String> options() {
    Map<String, String> opts = new LinkedHashMap<>(KeyValues.trimmed(options));
    OptionKeys.validate(opts);
    return opts;
  }

  Identifier identifier() {
    if (!table.contains(".") || table.startsWith(".") || table.endsWith(".")) {
      throw new UserError("--table '" + table + "' needs a database: write database.table");
    }
    return Identifier.parse(table);
  }

  /** The store and catalog, after the preflight checks when {@code writes}. */
  Opened openCatalog(boolean writes) throws IOException, InterruptedException {
    Map<String, String> opts = options();
    Identifier id = identifier();
    if (writes) {
      Preflight.check(warehouse, id.fullName(), opts);
    }
    FileIO io;
    try {
      io =
          FileIODiscovery.open(
              Path.of(warehouse), writes ? opts : Preflight.readOnly(warehouse, opts));
    } catch (IOException e) {
      throw new UserError(
          "cannot open the warehouse " + warehouse + ": " + OneLineErrors.describe(e),
          OneLineErrors.ENVIRONMENT);
    }
    return new Opened(io, new FileSystemCatalog(io, Path.of(warehouse), opts), null, opts);
  }

  /** The table, the -o options overriding its stored options for this run. */
  Opened open(boolean writes) throws IOException, InterruptedException {
    Opened catalog = openCatalog(writes);
    try {
      FileStoreTable t = catalog.catalog().getTable(identifier());
      String bucket = catalog.options().get(CoreOptions.BUCKET);
      // Tables created before the count was stored have none; the engine's check of every
      // commit against the live files of its partitions still refuses a different count there.
      String stored = t.schema().options().get(CoreOptions.BUCKET);
      if (writes && bucket != null && stored != null && !bucket.trim().equals(stored.trim())) {
        throw new UserError(
            "-o "
                + CoreOptions.BUCKET
                + "="
                + bucket
                + " cannot change the"
                + " bucket count of "
                + table
                + ", which is stored with "
                + CoreOptions.BUCKET
                + "="
                + stored
                + " (a primary-key table would hold keys twice); drop -o "
                + CoreOptions.BUCKET
                + ": the count is set once, by 'lockstep table create'");
      }
      t = t.copyWithOptions(catalog.options());
      return new Opened(catalog.fileIO(), catalog.catalog(), t, catalog.options());
    } catch (TableNotFoundException e) {
      // A schema directory without a schema file, beside snapshots: the schema was lost (a drop
      // deletes the whole schema directory).
      try {
        Path tablePath = catalog.catalog().tablePath(identifier());
        Path schemas = tablePath.child("schema");
        if (catalog.fileIO().exists(schemas)
            && catalog.fileIO().exists(tablePath.child("snapshot"))) {
          throw new dev.lockstep.engine.snapshot.DamagedFileException(
              "schema",
              schemas.child("schema-0").toString(),
              "missing",
              new java.io.FileNotFoundException(schemas.child("schema-0").toString()));
        }
      } catch (IOException | RuntimeException notDamage) {
        catalog.close();
        throw notDamage;
      }
      catalog.close();
      throw new UserError(
          "table "
              + table
              + " does not exist in "
              + warehouse
              + "; create it with 'lockstep table create' or check --warehouse and --table",
          OneLineErrors.BAD_INPUT); // a name on the command line that does not exist: bad input
    } catch (IOException | RuntimeException e) {
      catalog.close();
      throw e;
    }
  }

  /** The {@code --partition p=v,q=w} values (picocli splits them), keys and values trimmed. */
  static Map<String, String> partitionSpec(Map<String, String> specs) {
    return KeyValues.trimmed(specs);
  }

  /** A table (or only its catalog) and its store, closed together. */
  record Opened(
      FileIO fileIO, FileSystemCatalog catalog, FileStoreTable table, Map<String, String> options)
      implements AutoCloseable {
    @Override
    public void close() throws IOException {
      try {
        if (table != null) {
          DamageWarnings.collect(table);
          table.close();
        }
      } finally {
        fileIO.close();
      }
    }
  }
}
