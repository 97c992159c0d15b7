package dev.lockstep.engine;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;

/**
 * The writer process of {@link WriterRestartTest}: commits identifiers 1..n of one commit user to
 * {@code db.log}, each with the same rows every time it runs, and prints a line per commit. A
 * restart runs all identifiers again from 1; the committer turns the ones already in a snapshot
 * into no-ops.
 *
 * <p>Arguments: warehouse directory, commit user, number of commits, rows per commit.
 */
public final class CrashingWriterMain {

  private CrashingWriterMain() {}

  public static void main(String[] args) throws Exception {
    Path warehouse = Path.of(args[0]);
    String user = args[1];
    int commits = Integer.parseInt(args[2]);
    int rows = Integer.parseInt(args[3]);
    FileStoreTable table = TestTables.catalog(warehouse).getTable(Identifier.parse("db.log"));
    TableCommit commit = table.newCommit(user);
    try (TableWrite write = table.newWrite(user)) {
      for (long identifier = 1; identifier <= commits; identifier++) {
        for (int r = 0; r < rows; r++) {
          write.write(GenericRow.of(user, identifier));
        }
        CommitResult result = commit.commit(identifier, write.prepareCommit());
        System.out.println((result.alreadyCommitted() ? "skipped " : "committed ") + identifier);
        System.out.flush();
      }
    }
    table.close();
    System.out.println("done");
    System.out.flush();
  }
}
