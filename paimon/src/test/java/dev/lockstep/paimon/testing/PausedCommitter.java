package dev.lockstep.paimon.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;

/**
 * A child JVM that makes one Paimon commit of row {@code (writer, 1)} and stops inside the lock,
 * right before its snapshot file is written: it prints {@code PAUSED} and waits for {@code RESUME}
 * on stdin (the parent freezes it meanwhile, like a long GC pause, until its lease is gone). Then
 * prints {@code ACK}, or {@code ERR <message>} when Paimon threw, and {@code DONE}.
 *
 * <p>Arguments: {@code <database> <table> <writer id> <commit user> name=value...}.
 */
public final class PausedCommitter {

  private PausedCommitter() {}

  public static void main(String[] args) throws Exception {
    Options options = new Options();
    for (int i = 4; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      options.set(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    boolean[] paused = new boolean[1];
    PausingFileIO.Hook hook =
        path -> {
          if (paused[0]) {
            return;
          }
          paused[0] = true;
          System.out.println("PAUSED " + path.getName());
          System.out.flush();
          if (!"RESUME".equals(in.readLine())) {
            throw new IOException("the test did not resume this writer");
          }
        };
    CatalogContext context = CatalogContext.create(options, PausingFileIO.loader(hook), null);
    try (Catalog catalog = CatalogFactory.createCatalog(context)) {
      StreamWriteBuilder builder =
          catalog
              .getTable(Identifier.create(args[0], args[1]))
              .newStreamWriteBuilder()
              .withCommitUser(args[3]);
      try (StreamTableWrite write = builder.newWrite();
          StreamTableCommit commit = builder.newCommit()) {
        write.write(GenericRow.of(Integer.parseInt(args[2]), 1));
        List<CommitMessage> messages = write.prepareCommit(false, 1);
        try {
          commit.commit(1, messages);
          System.out.println("ACK");
        } catch (Exception e) {
          StringBuilder text = new StringBuilder();
          for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t.getClass().getSimpleName())
                .append(": ")
                .append(t.getMessage())
                .append(" | ");
          }
          System.out.println("ERR " + text.toString().replace('\n', ' '));
        }
      }
    }
    System.out.println("DONE");
    System.out.flush();
  }
}
