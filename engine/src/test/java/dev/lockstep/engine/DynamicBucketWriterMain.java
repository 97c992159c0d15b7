package dev.lockstep.engine;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * A writer process of {@link DynamicBucketMultiProcessTest}: upserts random keys of {@code [0,
 * keys)} into {@code db.kv} (a dynamic-bucket table) in batches for a while, one commit per batch,
 * compacting as writers do. After each commit it logs the snapshot that holds the batch and the
 * batch's last value of each key: {@code <snapshot> <key>=<value> ...}, one line per commit.
 *
 * <p>Arguments: warehouse directory, commit user, milliseconds to run, keys, rows per batch, seed,
 * log file.
 */
public final class DynamicBucketWriterMain {

  private DynamicBucketWriterMain() {}

  public static void main(String[] args) throws Exception {
    Path warehouse = Path.of(args[0]);
    String user = args[1];
    long millis = Long.parseLong(args[2]);
    int keys = Integer.parseInt(args[3]);
    int rows = Integer.parseInt(args[4]);
    Random random = new Random(Long.parseLong(args[5]));
    Path log = Path.of(args[6]);
    FileStoreTable table = TestTables.catalog(warehouse).getTable(Identifier.parse("db.kv"));
    TableCommit commit = table.newCommit(user);
    long end = System.currentTimeMillis() + millis;
    long conflicts = 0;
    try (TableWrite write = table.newWrite(user);
        BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      for (long identifier = 1; System.currentTimeMillis() < end; identifier++) {
        Map<Integer, String> batch = new LinkedHashMap<>();
        for (int r = 0; r < rows; r++) {
          int k = random.nextInt(keys);
          String v = user + "-" + identifier + "-" + r;
          write.write(GenericRow.of(k, v));
          batch.put(k, v);
        }
        CommitResult result = commit.commit(identifier, write.prepareCommit());
        StringBuilder line = new StringBuilder().append(result.dataSnapshotId());
        batch.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        out.write(line.toString());
        out.newLine();
        out.flush();
      }
      conflicts = commit.indexConflicts();
    }
    table.close();
    System.out.println("done " + conflicts);
    System.out.flush();
  }
}
