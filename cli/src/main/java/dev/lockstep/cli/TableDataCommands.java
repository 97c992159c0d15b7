package dev.lockstep.cli;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.maintenance.TagManager;
import dev.lockstep.engine.operation.PartitionOverwrite;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.PredicateParser;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.snapshot.DamagedFileException;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code lockstep table write|overwrite|read}. */
final class TableDataCommands {

  private TableDataCommands() {}

  /** Where rows come from: a CSV file or a generator. */
  static final class RowInput {
    @Option(
        names = "--csv",
        paramLabel = "FILE",
        description =
            "CSV file (UTF-8, a byte order mark is skipped; - reads the standard input); the"
                + " first line names the columns")
    Path csv;

    @Option(
        names = "--skip-bad-rows",
        description =
            "Skip (and count) CSV rows that do not parse instead of stopping the load; the result"
                + " line says how many and names the first")
    boolean skipBadRows;

    /** The rows --skip-bad-rows skipped in the last {@link #rows} call. */
    final TableRows.BadRows badRows = new TableRows.BadRows();

    /** The CHAR/VARCHAR values the last {@link #rows} call cut to their column's length. */
    final TableRows.Cuts cuts = new TableRows.Cuts();

    /** The CSV's text, read once (the standard input can be read only once). */
    private String content;

    private String content(List<DataField> fields) throws IOException {
      if (content == null) {
        content = TableRows.read(csv, fields);
      }
      return content;
    }

    @Option(names = "--generate", paramLabel = "N", description = "Generate N rows instead")
    Long generate;

    @Option(
        names = "--offset",
        defaultValue = "0",
        description = "First generated row number (default: ${DEFAULT-VALUE})")
    long offset;

    /**
     * The commit user of a load when none is given: the same input, read the same way, is the same
     * load (so its rerun after a kill skips what was committed); other input is another load.
     */
    String derivedCommitUser(int batchRows) throws IOException {
      MessageDigest digest;
      try {
        digest = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("the JVM has no SHA-256", e);
      }
      if (csv != null && content != null && csv.toString().equals(TableRows.STDIN)) {
        // The standard input has no path: its content alone names the load.
        digest.update(("stdin\n" + batchRows + "\n").getBytes(StandardCharsets.UTF_8));
        digest.update(content.getBytes(StandardCharsets.UTF_8));
      } else if (csv != null) {
        digest.update(
            ("csv\n" + csv.toAbsolutePath().normalize() + "\n" + batchRows + "\n")
                .getBytes(StandardCharsets.UTF_8));
        try (InputStream in = Files.newInputStream(csv)) {
          byte[] buffer = new byte[1 << 16];
          for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            digest.update(buffer, 0, n);
          }
        }
      } else {
        digest.update(
            ("generate\n" + generate + "\n" + offset + "\n" + batchRows)
                .getBytes(StandardCharsets.UTF_8));
      }
      return "load-" + HexFormat.of().formatHex(digest.digest(), 0, 8);
    }

    List<GenericRow> rows(FileStoreTable table) throws IOException {
      return rows(table, null);
    }

    /**
     * @param kinds when not null, a CSV's {@code _ROW_KIND} column is read and each row's kind
     *     added here (generated rows are {@code +I})
     */
    List<GenericRow> rows(FileStoreTable table, List<RowKind> kinds) throws IOException {
      List<DataField> fields = table.schema().fields();
      if ((csv == null) == (generate == null)) {
        throw new UserError("give either --csv FILE or --generate N");
      }
      if (generate != null) {
        if (skipBadRows) {
          throw new UserError("--skip-bad-rows applies to --csv input only");
        }
        if (generate < 0) {
          throw new UserError("--generate must be 0 or more");
        }
        List<GenericRow> rows =
            TableRows.generate(generate, offset, fields, table.schema().partitionKeys());
        if (kinds != null) {
          rows.forEach(row -> kinds.add(RowKind.INSERT));
        }
        return rows;
      }
      if (skipBadRows && csv == null) {
        throw new UserError("--skip-bad-rows applies to --csv input only");
      }
      return TableRows.fromCsv(
          csv.toString(),
          content(fields),
          fields,
          kinds,
          table.schema().hasPrimaryKey(),
          skipBadRows ? badRows : null,
          cuts);
    }
  }

  @Command(
      name = "write",
      mixinStandardHelpOptions = true,
      description =
          "Append rows (CSV or generated), committed in batches. A CSV column"
              + " _ROW_KIND gives each row's kind: +I, -U, +U or -D (empty: +I).")
  static final class Write implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();
    @Mixin RowInput input = new RowInput();

    @Option(
        names = "--batch-rows",
        defaultValue = "100000",
        description = "Rows per commit (default: ${DEFAULT-VALUE})")
    int batchRows;

    @Option(
        names = "--commit-user",
        paramLabel = "NAME",
        description =
            "Who commits; batch i is commit identifier i of this user, so a rerun of a"
                + " killed load commits only the batches not committed yet (default: derived from the"
                + " input: the file's path and content hash, or the --generate arguments, and"
                + " --batch-rows)")
    String commitUser;

    @Option(
        names = "--first-run",
        description =
            "This load has never committed to this table: look for batches committed before only"
                + " in snapshots committed from now on, so that a damaged old snapshot cannot stop"
                + " it. Wrong on a rerun, where it can commit a batch twice")
    boolean firstRun;

    @Override
    public Integer call() throws Exception {
      if (batchRows < 1) {
        throw new UserError("--batch-rows must be at least 1");
      }
      if (commitUser != null && commitUser.isBlank()) {
        throw new UserError(
            "--commit-user is empty; give a name, or leave it out to derive one"
                + " from the input");
      }
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(true)) {
        FileStoreTable table = opened.table();
        List<RowKind> kinds = new ArrayList<>();
        List<GenericRow> rows = input.rows(table, kinds);
        String user = commitUser != null ? commitUser.trim() : input.derivedCommitUser(batchRows);
        int batches = (rows.size() + batchRows - 1) / batchRows;
        Progress progress = new Progress(out, "rows", rows.size(), Progress.stdoutIsTerminal());
        TableCommit commit = table.newCommit(user);
        if (firstRun) {
          commit.withFreshCommitUser();
        }
        long commits = 0;
        long skipped = 0;
        long written = 0;
        long lastSnapshot = 0;
        int current = 0;
        boolean unknown = false;
        try (TableWrite write = table.newWrite(user);
            commit) {
          for (int batch = 1; batch <= batches; batch++) {
            current = batch;
            int from = (batch - 1) * batchRows;
            int to = Math.min(rows.size(), from + batchRows);
            // Batch i is identifier i of this user: one an earlier run of this load committed is
            // in a snapshot already and is neither written nor committed again.
            if (committedBefore(commit, batch)) {
              skipped++;
              progress.update(to);
              continue;
            }
            for (int i = from; i < to; i++) {
              write.write(kinds.get(i), rows.get(i));
            }
            List<CommitMessage> messages = write.prepareCommit();
            CommitResult result;
            try {
              result = commit.commit(batch, messages);
            } catch (CommitStateUnknownException e) {
              unknown = true;
              throw e; // the batch may have landed: its files may be live
            } catch (IOException | RuntimeException failed) {
              // Nothing of the batch was published (TableCommit's contract): delete its files
              // (with the interrupt flag cleared: the deletes must not fail on it).
              boolean wasInterrupted = Thread.interrupted();
              try {
                commit.abort(batch, messages);
              } catch (IOException | RuntimeException e) {
                failed.addSuppressed(e);
              } finally {
                if (wasInterrupted) {
                  Thread.currentThread().interrupt();
                }
              }
              throw failed;
            }
            commits++;
            written += to - from;
            lastSnapshot = Math.max(result.dataSnapshotId(), result.compactSnapshotId());
            progress.update(to);
          }
        } catch (IOException | RuntimeException failed) {
          if (Interruption.requested()) {
            out.printf(
                "interrupted by %s at batch %d of %d: %d batch(es) committed by this run%s, %d"
                    + " skipped as committed before; batch %d %s; %d batch(es) not started. Run"
                    + " the same load again: it commits each batch once.%n",
                Interruption.name(),
                current,
                batches,
                commits,
                lastSnapshot > 0 ? " (latest snapshot " + lastSnapshot + ")" : "",
                skipped,
                current,
                unknown
                    ? "has an UNKNOWN outcome (the commit may have landed): its files are kept"
                    : "not committed, its files deleted",
                batches - current);
            out.flush();
          }
          throw failed;
        }
        progress.finish(rows.size());
        if (batches > 0 && skipped == batches) {
          out.printf(
              "all %d batch(es) already committed by commit user %s (an earlier run of this"
                  + " load); nothing written. To load the same input again, pass another"
                  + " --commit-user%n",
              batches, user);
        } else {
          out.printf(
              "wrote %d rows to %s in %d commit(s)%s%s%s%n",
              written,
              target.table,
              commits,
              lastSnapshot > 0 ? "; latest snapshot " + lastSnapshot : "",
              input.badRows.summary() + input.cuts.summary(),
              skipped == 0
                  ? ""
                  : "; "
                      + skipped
                      + " batch(es) already committed by earlier runs"
                      + " of this load (commit user "
                      + user
                      + ") skipped");
        }
      }
      return 0;
    }

    /**
     * Whether an earlier run of this load committed {@code batch}; when a damaged snapshot makes
     * that unknowable, the one line also names the way on for a load that never ran.
     */
    private static boolean committedBefore(TableCommit commit, int batch) throws IOException {
      try {
        return commit.isCommitted(batch);
      } catch (DamagedFileException d) {
        throw new DamagedFileException(
            d.kind(),
            d.file(),
            d.damage() + "; if this load never committed to this table, run it with --first-run",
            d);
      }
    }
  }

  @Command(
      name = "overwrite",
      mixinStandardHelpOptions = true,
      description =
          "Replace partitions with rows as one OVERWRITE snapshot: the partitions the rows"
              + " fall into (dynamic), or every partition matching --partition (static).")
  static final class Overwrite implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();
    @Mixin RowInput input = new RowInput();

    @Option(
        names = "--partition",
        split = ",",
        paramLabel = "COL=VALUE[,COL=VALUE]",
        description = "Static overwrite of the matching partitions (repeatable)")
    Map<String, String> partition;

    @Option(names = "--all", description = "Static overwrite of the whole table")
    boolean all;

    @Override
    public Integer call() throws Exception {
      Map<String, String> spec0 = TableTarget.partitionSpec(partition);
      if (all && !spec0.isEmpty()) {
        throw new UserError("give --all or --partition, not both");
      }
      PrintWriter out = spec.commandLine().getOut();
      try (TableTarget.Opened opened = target.open(true)) {
        FileStoreTable table = opened.table();
        PartitionOverwrite overwrite;
        try {
          // The commit user is minted below for this one overwrite: no snapshot can hold it.
          overwrite =
              new PartitionOverwrite(table, all || !spec0.isEmpty() ? spec0 : null)
                  .withFreshCommitUser();
        } catch (IllegalArgumentException e) {
          throw new UserError("--partition: " + e.getMessage());
        }
        List<GenericRow> rows = input.rows(table);
        CommitResult result;
        try {
          result = overwrite.overwrite("lockstep-cli-" + UUID.randomUUID(), 1, rows);
        } catch (IllegalArgumentException e) {
          throw new UserError(e.getMessage());
        } catch (IOException | RuntimeException failed) {
          if (Interruption.requested()) {
            out.printf(
                "interrupted by %s: %s%n",
                Interruption.name(),
                OneLineErrors.unwrap(failed) instanceof CommitStateUnknownException
                    ? "the overwrite's commit has an UNKNOWN outcome (it may have landed): its"
                        + " files are kept"
                    : "the overwrite was not committed (the table is as before); its files were"
                        + " deleted");
            out.flush();
          }
          throw failed;
        }
        out.printf(
            "overwrote %s (%s) with %d rows: snapshot %d%s%n",
            target.table,
            all
                ? "whole table"
                : spec0.isEmpty() ? "dynamic: the partitions written" : "static: " + spec0,
            rows.size(),
            result.dataSnapshotId(),
            input.badRows.summary() + input.cuts.summary());
      }
      return 0;
    }
  }

  @Command(
      name = "read",
      mixinStandardHelpOptions = true,
      description = "Print rows as CSV (header first), or count them.")
  static class Read implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin TableTarget target = new TableTarget();

    @Option(
        names = "--snapshot",
        paramLabel = "ID",
        description = "Read this snapshot (time travel)")
    Long snapshot;

    @Option(
        names = "--tag",
        paramLabel = "NAME",
        description = "Read a tag's snapshot (also after the snapshot itself expired)")
    String tag;

    @Option(
        names = "--columns",
        split = ",",
        paramLabel = "COLUMN",
        description = "Columns to print")
    List<String> columns;

    @Option(
        names = "--partition",
        split = ",",
        paramLabel = "COL=VALUE[,COL=VALUE]",
        description = "Only these partitions (repeatable)")
    Map<String, String> partition;

    @Option(names = "--count", description = "Print the number of rows only")
    boolean count;

    @Option(
        names = "--where",
        paramLabel = "EXPR",
        description =
            "Only rows for which EXPR is true, e.g. \"amount >= 10 AND note IS NOT NULL\":"
                + " =, <>, <, <=, >, >=, [NOT] IN (...), IS [NOT] NULL, AND, OR, NOT, parentheses;"
                + " 'text', numbers, DATE '2024-05-01', TIMESTAMP '2024-05-01 10:00:00'. Files and"
                + " row groups that cannot hold such a row are not read")
    String where;

    /** Whether only the number of rows is printed. */
    boolean countOnly() {
      return count;
    }

    @Option(
        names = "--row-kind",
        description =
            "Print each row's kind first, as a _ROW_KIND"
                + " column: +I or +U (the kind of the row that won its key; append tables: +I)")
    boolean rowKind;

    @Mixin
    TableChangelogCommands.FollowOptions followOptions = new TableChangelogCommands.FollowOptions();

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      if (followOptions.follow) {
        if (snapshot != null || tag != null || count || columns != null || partition != null) {
          throw new UserError(
              "--follow prints every column of every change; drop --snapshot, --tag, --count,"
                  + " --columns and --partition (use --from-snapshot to start elsewhere)");
        }
        try (TableTarget.Opened opened = target.open(false)) {
          return followOptions.run(opened.table(), out);
        }
      }
      if (followOptions.given()) {
        throw new UserError(
            "--from-snapshot, --consumer-id, --max-snapshots and --timeout go with --follow; add"
                + " --follow or drop them");
      }
      Map<String, String> partitionSpec = TableTarget.partitionSpec(partition);
      try (TableTarget.Opened opened = target.open(false)) {
        FileStoreTable table = opened.table();
        if (snapshot != null && tag != null) {
          throw new UserError("give --snapshot or --tag, not both");
        }
        Snapshot tagged = null;
        if (tag != null) {
          TagManager tags = new TagManager(table);
          tagged =
              tags.find(tag)
                  .map(TagManager.Tag::snapshot)
                  .orElseThrow(
                      () ->
                          new UserError(
                              "--tag: tag '"
                                  + tag
                                  + "' of "
                                  + target.table
                                  + " does not exist; list the tags"
                                  + " with 'lockstep table tags'"));
        }
        OptionalLong id =
            tagged != null
                ? OptionalLong.of(tagged.id())
                : snapshot != null ? OptionalLong.of(snapshot) : table.snapshotManager().latestId();
        Predicate filter = null;
        if (where != null) {
          try {
            filter = PredicateParser.parse(table.schema().rowType(), where);
          } catch (IllegalArgumentException e) {
            throw new UserError("--where: " + e.getMessage());
          }
        }
        if (id.isEmpty()) {
          if (countOnly()) {
            out.println("0");
          } else {
            StringBuilder header = new StringBuilder();
            TableRows.appendRecord(header, header(names(table)));
            out.print(header);
          }
          return 0;
        }
        Snapshot s = tagged != null ? tagged : TableDiagnosis.snapshot(table, id.getAsLong());
        var read = table.newRead();
        if (columns != null) {
          try {
            read.withProjection(columns.toArray(String[]::new));
          } catch (IllegalArgumentException e) {
            throw new UserError("--columns: " + e.getMessage());
          }
        }
        if (filter != null) {
          read.withFilter(filter);
        }
        if (countOnly() && columns == null) {
          // Counting needs no values: read the first column only (and what the filter and the
          // merge need).
          read.withProjection(table.schema().fields().get(0).name());
        }
        TableScan scan = table.newScan().withSnapshot(s).withFilter(filter);
        if (!partitionSpec.isEmpty()) {
          for (String column : partitionSpec.keySet()) {
            if (!table.schema().partitionKeys().contains(column)) {
              throw new UserError(
                  "--partition: '"
                      + column
                      + "' is not a partition column of "
                      + target.table
                      + "; its partition columns are "
                      + table.schema().partitionKeys());
            }
          }
          scan.withPartitionFilter(p -> PartitionOverwrite.matches(p, partitionSpec));
        }
        List<Split> splits = null;
        AtomicLong rows = new AtomicLong();
        StringBuilder text = new StringBuilder();
        try {
          splits = scan.plan().splits();
          for (Split split : splits) {
            read.forEachWithKind(
                split,
                (kind, row) -> {
                  rows.incrementAndGet();
                  if (!countOnly()) {
                    appendCsv(text, rowKind ? kind : null, row);
                  }
                });
          }
        } catch (IOException | RuntimeException e) {
          throw TableDiagnosis.explain(table, s, splits, e);
        }
        // Printed only after the whole read succeeded: no half output on failure.
        if (countOnly()) {
          out.println(rows.get());
        } else {
          StringBuilder header = new StringBuilder();
          TableRows.appendRecord(header, header(columns != null ? columns : names(table)));
          out.print(header);
          out.print(text);
        }
        out.flush();
      }
      return 0;
    }

    /** The printed header: {@code _ROW_KIND} first with {@code --row-kind}, then the columns. */
    private List<String> header(List<String> columns) {
      List<String> printed = new ArrayList<>();
      if (rowKind) {
        printed.add(TableRows.ROW_KIND_COLUMN);
      }
      printed.addAll(columns);
      return printed;
    }

    private static List<String> names(FileStoreTable table) {
      return table.schema().fields().stream().map(DataField::name).toList();
    }

    private static void appendCsv(StringBuilder sb, RowKind kind, GenericRow row) {
      List<Object> values = new ArrayList<>(row.size() + 1);
      if (kind != null) {
        values.add(kind.shortString());
      }
      for (int i = 0; i < row.size(); i++) {
        values.add(row.get(i));
      }
      TableRows.appendRecord(sb, values);
    }
  }

  @Command(
      name = "count",
      mixinStandardHelpOptions = true,
      description =
          "Print the number of rows (as read --count): of a snapshot or tag, partitions, and rows"
              + " matching --where.")
  static final class Count extends Read {
    @Override
    boolean countOnly() {
      return true;
    }
  }
}
