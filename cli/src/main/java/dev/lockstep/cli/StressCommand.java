package dev.lockstep.cli;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.TableExistsException;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lockstep stress}: many writers in many processes commit to one primary-key table, with
 * compaction inline, in a dedicated job, or off; then the run is verified.
 *
 * <ol>
 *   <li>Create a fresh table (k INT primary key, v BIGINT, w STRING) in the warehouse (by default a
 *       new local directory: no servers).
 *   <li>Start {@code --processes} worker JVMs (or run in this JVM when 1), each with {@code
 *       --writers} threads; each thread is its own commit user and commits {@code --commits}
 *       batches of {@code --rows} rows over a key space shared by all writers.
 *   <li>With {@code --compaction dedicated}, writers are write-only and this process runs a
 *       compaction loop until they finish.
 *   <li>Verify: every commit is in exactly one APPEND snapshot and no other writer snapshot exists;
 *       every commit id is unique; the table equals the model built by applying every commit in
 *       snapshot order (the later-committed snapshot wins a key).
 * </ol>
 *
 * <p>The stress table keeps every snapshot ({@code snapshot.num-retained.min} is stored as {@code
 * Integer.MAX_VALUE} with it), so snapshot expiration never runs during a stress run and the
 * verification can read the whole history from snapshot 1.
 */
@Command(
    name = "stress",
    mixinStandardHelpOptions = true,
    description = "Concurrent writers and compaction on one table, then verify every invariant.")
final class StressCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--warehouse",
      paramLabel = "URI",
      description = "Warehouse URI; default: a new local directory under the temp dir")
  String warehouse;

  @Option(
      names = "--table",
      paramLabel = "DB.TABLE",
      defaultValue = "default.stress",
      description = "A table that does not exist yet (default: ${DEFAULT-VALUE})")
  String table;

  @Option(names = "--writers", defaultValue = "4", description = "Writer threads per process")
  int writers;

  @Option(names = "--processes", defaultValue = "1", description = "Worker processes (JVMs)")
  int processes;

  @Option(names = "--commits", defaultValue = "50", description = "Commits per writer")
  int commits;

  @Option(names = "--rows", defaultValue = "100", description = "Rows per commit")
  int rows;

  @Option(names = "--keys", defaultValue = "10000", description = "Key space shared by all writers")
  int keys;

  @Option(
      names = "--compaction",
      defaultValue = "inline",
      description = "inline, dedicated or off (default: ${DEFAULT-VALUE})")
  String compaction;

  @Option(
      names = "--seconds",
      defaultValue = "0",
      description = "Stop writers early after this many seconds (0: run all commits)")
  long seconds;

  @Option(
      names = {"-o", "--option"},
      paramLabel = "KEY=VALUE",
      description = "A catalog or table option, repeatable (e.g. -o bucket=4 -o lock.enabled=true)")
  Map<String, String> options;

  @Option(names = "--json", description = "Print one JSON object with the results")
  boolean json;

  @Override
  public Integer call() throws Exception {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    Map<String, String> opts = new LinkedHashMap<>(KeyValues.trimmed(options));
    OptionKeys.validate(opts);
    boolean embedded = warehouse == null;
    String where =
        embedded
            ? Files.createTempDirectory("lockstep-stress-").toAbsolutePath().toString()
            : warehouse;
    Preflight.check(where, table, opts);
    long deadline = seconds > 0 ? System.currentTimeMillis() + seconds * 1000 : 0;
    StressConfig config =
        new StressConfig(
            where, table, writers, processes, commits, rows, keys, compaction, deadline, opts);
    createTable(config);
    if (!json) {
      out.printf(
          "lockstep stress: table %s in %s%s%n",
          table, where, embedded ? " (embedded local warehouse)" : "");
      out.printf(
          "  %d writer(s) x %d process(es), %d commits x %d rows each, compaction %s%n",
          writers, processes, commits, rows, compaction);
      out.flush();
    }
    java.nio.file.Path work = Files.createTempDirectory("lockstep-stress-run-");
    long expected = (long) writers * processes * commits;
    Progress progress =
        new Progress(out, "commits", expected, !json && Progress.stdoutIsTerminal());
    AtomicLong done = new AtomicLong();
    long t0 = System.nanoTime();
    StressVerifier.Compaction compactor = new StressVerifier.Compaction();
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread compactionLoop =
        compaction.equals("dedicated") ? startCompactor(config, compactor, writing) : null;
    List<java.nio.file.Path> resultFiles =
        runWorkers(
            config,
            work,
            () -> {
              if (!json) {
                progress.update(done.incrementAndGet());
              } else {
                done.incrementAndGet();
              }
            });
    double writeSeconds = (System.nanoTime() - t0) / 1e9;
    writing.set(false);
    if (compactionLoop != null) {
      compactionLoop.join();
      if (compactor.failure.get() != null) {
        throw new UserError(
            "the dedicated compaction job failed: "
                + OneLineErrors.describe(compactor.failure.get()),
            OneLineErrors.BROKEN);
      }
    }
    if (!json) {
      progress.finish(done.get());
    }
    StressVerifier.Report report =
        StressVerifier.verify(config, resultFiles, writeSeconds, compactor);
    out.println(json ? report.toJson() : report.toText());
    out.flush();
    deleteRecursively(work);
    if (report.ok() && embedded) {
      deleteRecursively(java.nio.file.Path.of(where));
    } else if (!report.ok() && !json) {
      out.println("  The table is kept for inspection: " + where);
    }
    return report.ok() ? 0 : OneLineErrors.BROKEN;
  }

  private void validate() {
    if (writers < 1 || processes < 1 || commits < 1 || rows < 1 || keys < 1) {
      throw new UserError(
          "--writers, --processes, --commits, --rows and --keys must be at least 1");
    }
    if (!List.of("inline", "dedicated", "off").contains(compaction)) {
      throw new UserError("--compaction is '" + compaction + "'; write inline, dedicated or off");
    }
    if (!table.contains(".")) {
      throw new UserError("--table '" + table + "' needs a database: write database.table");
    }
  }

  private static void createTable(StressConfig config) throws IOException {
    Map<String, String> tableOptions = new LinkedHashMap<>();
    tableOptions.put(CoreOptions.BUCKET, config.options().getOrDefault(CoreOptions.BUCKET, "2"));
    tableOptions.put(
        CoreOptions.WRITE_ONLY, Boolean.toString(!config.compaction().equals("inline")));
    // Verification reads every snapshot from 1: nothing may expire during the run. Stored with the
    // table, so it wins over any catalog option; the expiration after each commit then stops
    // before reading anything.
    tableOptions.put(MaintenanceOptions.NUM_RETAINED_MIN, Integer.toString(Integer.MAX_VALUE));
    tableOptions.put(MaintenanceOptions.NUM_RETAINED_MAX, Integer.toString(Integer.MAX_VALUE));
    Schema schema =
        Schema.newBuilder()
            .column("k", DataType.intType().notNull())
            .column("v", DataType.bigint())
            .column("w", DataType.string())
            .primaryKey("k")
            .options(tableOptions)
            .build();
    try (FileIO io = FileIODiscovery.open(Path.of(config.warehouse()), config.options())) {
      FileSystemCatalog catalog =
          new FileSystemCatalog(io, Path.of(config.warehouse()), config.options());
      catalog.createTable(StressWorker.identifier(config.table()), schema).close();
    } catch (TableExistsException e) {
      throw new UserError(
          "table "
              + config.table()
              + " already exists in "
              + config.warehouse()
              + "; stress needs a fresh table: pass another --table or drop it");
    }
  }

  private Thread startCompactor(
      StressConfig config, StressVerifier.Compaction stats, AtomicBoolean writing) {
    Thread thread =
        new Thread(
            () -> {
              try (StressTable opened = StressTable.open(config)) {
                TableCompactor compactor = opened.table().newCompactor("stress-compactor");
                while (writing.get()) {
                  compactor.compactOnce(false).ifPresent(r -> stats.commits.incrementAndGet());
                  Thread.sleep(100);
                }
                compactor.compactOnce(true).ifPresent(r -> stats.commits.incrementAndGet());
                stats.fileConflicts.addAndGet(compactor.fileConflicts());
              } catch (Throwable t) {
                stats.failure.set(t);
              }
            },
            "lockstep-stress-compactor");
    thread.start();
    return thread;
  }

  private static List<java.nio.file.Path> runWorkers(
      StressConfig config, java.nio.file.Path work, Runnable onCommit) throws Exception {
    List<java.nio.file.Path> results = new ArrayList<>();
    if (config.processes() == 1) {
      java.nio.file.Path result = work.resolve("writers-0.txt");
      StressWorker.run(config, 0, result, onCommit);
      results.add(result);
      return results;
    }
    java.nio.file.Path configFile = work.resolve("stress.properties");
    config.write(configFile);
    List<Process> children = new ArrayList<>();
    List<Thread> readers = new ArrayList<>();
    AtomicReference<String> firstError = new AtomicReference<>();
    String javaBin =
        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int p = 0; p < config.processes(); p++) {
      java.nio.file.Path result = work.resolve("writers-" + p + ".txt");
      results.add(result);
      ProcessBuilder builder =
          new ProcessBuilder(
              javaBin,
              "-Xmx768m",
              "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
              "-cp",
              System.getProperty("java.class.path"),
              StressWorker.class.getName(),
              configFile.toString(),
              Integer.toString(p),
              result.toString());
      builder.redirectErrorStream(true);
      Process child = builder.start();
      children.add(child);
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = in.readLine()) != null) {
                    if (line.equals("commit")) {
                      onCommit.run();
                    } else if (line.startsWith("stress worker failed")) {
                      firstError.compareAndSet(null, line);
                    }
                  }
                } catch (IOException ignored) {
                  // The child ended; its exit code tells the rest.
                }
              });
      reader.start();
      readers.add(reader);
    }
    for (int p = 0; p < children.size(); p++) {
      int code = children.get(p).waitFor();
      readers.get(p).join();
      if (code != 0) {
        firstError.compareAndSet(null, "worker process " + p + " exited with " + code);
      }
    }
    if (firstError.get() != null) {
      throw new UserError(firstError.get(), OneLineErrors.ENVIRONMENT);
    }
    return results;
  }

  static void deleteRecursively(java.nio.file.Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var walk = Files.walk(dir)) {
      for (java.nio.file.Path p :
          (Iterable<java.nio.file.Path>)
              walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }
}
