package dev.lockstep.cli;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.maintenance.ExpireReport;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.operation.CompactionJob;
import dev.lockstep.engine.operation.PartitionOverwrite;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code lockstep table compact|expire-snapshots|remove-orphan-files}. */
final class TableMaintenanceCommands {

  private TableMaintenanceCommands() {}

  @Command(
      name = "compact",
      mixinStandardHelpOptions = true,
      description =
          "The dedicated compaction job: one round, or continuously. Expires snapshots"
              + " after each committed round (write-only writers never do).")
  static final class Compact implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(
        names = "--full",
        description =
            "Merge every bucket into one sorted run (append tables: rewrite every file from"
                + " the first small one on)")
    boolean full;

    @Option(
        names = "--partition",
        split = ",",
        paramLabel = "COL=VALUE[,COL=VALUE]",
        description = "Only these partitions (repeatable)")
    Map<String, String> partition;

    @Option(names = "--continuous", description = "Keep compacting until stopped (Ctrl-C)")
    boolean continuous;

    @Option(
        names = "--interval",
        defaultValue = "10s",
        description =
            "Continuous: pause after a round with nothing to do (default: ${DEFAULT-VALUE})")
    Duration interval;

    @Option(
        names = "--for",
        paramLabel = "DURATION",
        description = "Continuous: stop after this long (default: until stopped)")
    Duration runFor;

    @Option(names = "--no-expire", description = "Do not expire snapshots after each round")
    boolean noExpire;

    @Override
    public Integer call() throws Exception {
      Duration pause = interval;
      Duration limit = runFor;
      Map<String, String> spec0 = TableTarget.partitionSpec(partition);
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(true)) {
        FileStoreTable table = opened.table();
        checkPartitionColumns(table, spec0);
        Predicate<String> filter =
            spec0.isEmpty() ? p -> true : PartitionOverwrite.pathFilter(table, spec0);
        try (CompactionJob job =
            new CompactionJob(table, "lockstep-compact-job", filter, full, !noExpire)) {
          if (!continuous) {
            Optional<CommitResult> result;
            try {
              result = job.runOnce();
            } catch (IOException | RuntimeException failed) {
              if (Interruption.requested()) {
                out.printf(
                    "interrupted by %s: %s%n",
                    Interruption.name(),
                    OneLineErrors.unwrap(failed) instanceof CommitStateUnknownException
                        ? "the compaction's commit has an UNKNOWN outcome (it may have landed):"
                            + " its output is kept"
                        : "nothing committed; the compaction's output was deleted");
                out.flush();
              }
              throw failed;
            }
            out.println(
                result
                    .map(
                        r ->
                            "compacted "
                                + target.table
                                + ": snapshot "
                                + r.compactSnapshotId()
                                + (r.droppedCompactions().isEmpty()
                                    ? ""
                                    : ", "
                                        + r.droppedCompactions().size()
                                        + " bucket(s) dropped after a conflict"))
                    .orElse("nothing to compact in " + target.table));
            return 0;
          }
          long deadline = limit == null ? Long.MAX_VALUE : System.nanoTime() + limit.toNanos();
          out.printf(
              "compacting %s continuously (%s, pause %s)%n",
              target.table, full ? "full" : "minor", Durations.format(pause));
          out.flush();
          long commits = job.runContinuously(pause, () -> System.nanoTime() < deadline);
          out.printf("stopped after %d rounds: %d compaction snapshot(s)%n", job.rounds(), commits);
        }
      }
      return 0;
    }
  }

  static void checkPartitionColumns(FileStoreTable table, Map<String, String> spec) {
    for (String column : spec.keySet()) {
      if (!table.schema().partitionKeys().contains(column)) {
        throw new UserError(
            "--partition: '"
                + column
                + "' is not a partition column of "
                + table.fullName()
                + "; its partition columns are "
                + table.schema().partitionKeys());
      }
    }
  }

  @Command(
      name = "expire-snapshots",
      mixinStandardHelpOptions = true,
      description =
          "Expire old snapshots and delete the files only they referenced. Defaults come"
              + " from the table's options (snapshot.num-retained.min, snapshot.num-retained.max,"
              + " snapshot.time-retained, snapshot.expire.limit).")
  static final class ExpireSnapshots implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(names = "--retain-min", paramLabel = "N", description = "Keep at least N snapshots")
    Integer retainMin;

    @Option(names = "--retain-max", paramLabel = "N", description = "Keep at most N snapshots")
    Integer retainMax;

    @Option(
        names = "--older-than",
        paramLabel = "DURATION",
        description = "Expire a snapshot once its successor is older than this (time-retained)")
    Duration olderThan;

    @Option(names = "--limit", paramLabel = "N", description = "Expire at most N snapshots")
    Integer limit;

    @Option(names = "--dry-run", description = "Report what would be deleted; delete nothing")
    boolean dryRun;

    @Override
    public Integer call() throws Exception {
      Duration time = olderThan;
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(true)) {
        FileStoreTable table = opened.table();
        MaintenanceOptions options;
        try {
          options =
              MaintenanceOptions.from(table.options().all().asMap())
                  .with(retainMin, retainMax, time, limit);
        } catch (IllegalArgumentException e) {
          throw new UserError(
              e.getMessage()
                  .replace("Option 'snapshot.num-retained.min'", "--retain-min")
                  .replace("Option 'snapshot.num-retained.max'", "--retain-max")
                  .replace("Option 'snapshot.expire.limit'", "--limit"));
        }
        SnapshotExpiration expiration = new SnapshotExpiration(table, options);
        OptionalLong earliestBefore = earliest(table);
        int damageBefore = table.snapshotManager().skippedDamage().entries().size();
        ExpireReport r;
        try {
          r = dryRun ? expiration.dryRun() : expiration.expire();
        } catch (IOException | RuntimeException failed) {
          if (Interruption.requested()) {
            out.printf(
                "interrupted by %s: %s%n",
                Interruption.name(), expiredSince(table, earliestBefore));
            out.flush();
          }
          throw failed;
        }
        if (r.expiredSnapshots() == 0
            && table.snapshotManager().skippedDamage().entries().size() > damageBefore) {
          // Not "nothing to expire": the retention may well want snapshots gone, but planning
          // their expiration met damaged metadata (the warning line names it), so it kept all.
          out.printf(
              "nothing expired in %s: the snapshots the retention would expire name damaged"
                  + " metadata (in the warning), so they are kept; restore it from a backup"
                  + " ('lockstep table check' lists every damaged file)%n",
              target.table);
          return 0;
        }
        if (r.expiredSnapshots() == 0) {
          out.printf(
              "nothing to expire in %s (keeping at least %d snapshots, and those whose"
                  + " successor is younger than %s)%n",
              target.table, options.numRetainedMin(), Durations.format(options.timeRetained()));
          return 0;
        }
        out.printf(
            "%s snapshots %d..%d of %s: %d data files and %d manifests, %d bytes%s%n",
            dryRun ? "would expire" : "expired",
            r.firstExpired(),
            r.lastExpired(),
            target.table,
            r.deletedDataFiles().size(),
            r.deletedManifests().size(),
            r.deletedBytes(),
            dryRun
                ? " (dry run: nothing deleted)"
                : "; earliest snapshot now " + r.earliestAfter());
      }
      return 0;
    }

    /** The earliest snapshot, or empty when it cannot be read (expiration then says why). */
    private static OptionalLong earliest(FileStoreTable table) {
      try {
        return table.snapshotManager().earliestId();
      } catch (IOException | RuntimeException e) {
        return OptionalLong.empty();
      }
    }

    /**
     * What an interrupted expiration did, read back from the table: which snapshots are gone.
     * Snapshot files are deleted before the data files (SnapshotExpiration's steps 3 and 4), so
     * what it deleted of the rest is left to orphan-file removal.
     */
    private static String expiredSince(FileStoreTable table, OptionalLong before) {
      boolean interrupted = Thread.interrupted(); // the read must not fail on the interrupt
      try {
        OptionalLong now = table.snapshotManager().earliestId();
        if (before.isEmpty() || now.isEmpty()) {
          return "what was expired is unknown; 'lockstep table snapshots' lists what is left";
        }
        if (now.getAsLong() <= before.getAsLong()) {
          return "nothing expired (the earliest snapshot is still " + now.getAsLong() + ")";
        }
        return String.format(
            "snapshots %d..%d expired (earliest snapshot now %d); data files and manifests"
                + " only they referenced and not deleted yet are orphans for 'lockstep table"
                + " remove-orphan-files'",
            before.getAsLong(), now.getAsLong() - 1, now.getAsLong());
      } catch (IOException | RuntimeException e) {
        return "what was expired is unknown ("
            + e.getMessage()
            + "); 'lockstep table snapshots'"
            + " lists what is left";
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @Command(
      name = "remove-orphan-files",
      mixinStandardHelpOptions = true,
      description =
          "Remove files no snapshot references that are older than --older-than. The"
              + " guard must exceed the longest time from a file's creation to its commit.")
  static final class RemoveOrphanFiles implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(
        names = "--older-than",
        defaultValue = "1d",
        paramLabel = "DURATION",
        description = "Only files last modified longer ago (default: ${DEFAULT-VALUE})")
    Duration olderThan;

    @Option(names = "--dry-run", description = "List the orphans; remove nothing")
    boolean dryRun;

    @Override
    public Integer call() throws Exception {
      Duration guard = olderThan;
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(true)) {
        OrphanFilesCleaner cleaner = new OrphanFilesCleaner(opened.table(), guard, dryRun);
        OrphanReport r;
        try {
          r = cleaner.clean();
        } catch (IOException | RuntimeException failed) {
          if (Interruption.requested()) {
            out.printf(
                "interrupted by %s: removed %d orphan file(s) before stopping; the rest are"
                    + " left for the next run (only files no snapshot references were removed,"
                    + " so every snapshot is whole)%n",
                Interruption.name(), cleaner.removedSoFar());
            out.flush();
          }
          throw failed;
        }
        for (String s : r.unreadable()) {
          out.printf("  could not read %s; the files it names are unknown%n", s);
        }
        for (OrphanReport.RemovedFile f : r.removed()) {
          out.printf("  %s%s (%d bytes)%n", dryRun ? "orphan " : "removed ", f.path(), f.bytes());
        }
        out.printf(
            "%s %d orphan file(s), %d bytes, in %s; %d files scanned, %d referenced, %d"
                + " unreferenced but younger than %s (kept)%s%n",
            dryRun ? "found" : "removed",
            r.removed().size(),
            r.removedBytes(),
            target.table,
            r.scannedFiles(),
            r.referencedFiles(),
            r.youngerThanGuard(),
            Durations.format(guard),
            r.unreadable().isEmpty()
                ? ""
                : "; "
                    + r.keptUnprovable()
                    + " unreferenced file(s) kept because the "
                    + r.unreadable().size()
                    + " unreadable snapshot(s) might name them (restore the damaged files, see"
                    + " 'lockstep table check')");
      }
      return 0;
    }
  }
}
