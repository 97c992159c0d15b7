package dev.lockstep.paimon.testing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;

/**
 * A child JVM that appends one-row commits to a Paimon table through Paimon's own Java API, with
 * whatever FileIO and lock its class path and options give it.
 *
 * <p>Arguments: {@code <database> <table> <writer id> <commits> name=value...} (catalog options).
 * Prints {@code READY} once the table is loaded, waits for {@code GO} on stdin (so that all writers
 * start together), then per commit {@code ACK <seq>} when Paimon reported it committed or {@code
 * ERR <seq> <message>} when it threw, and {@code DONE} at the end. Row {@code (writer, seq)} is
 * written by commit {@code seq}.
 */
public final class PaimonAppender {

  private PaimonAppender() {}

  public static void main(String[] args) throws Exception {
    String database = args[0];
    String tableName = args[1];
    int writer = Integer.parseInt(args[2]);
    int commits = Integer.parseInt(args[3]);
    Options options = new Options();
    for (int i = 4; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      options.set(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
      Table table = catalog.getTable(Identifier.create(database, tableName));
      System.out.println("READY");
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      if (!"GO".equals(in.readLine())) {
        return;
      }
      StreamWriteBuilder builder = builder(table, writer);
      StreamTableWrite write = builder.newWrite();
      StreamTableCommit commit = builder.newCommit();
      for (int seq = 1; seq <= commits; seq++) {
        try {
          write.write(GenericRow.of(writer, seq));
          List<CommitMessage> messages = write.prepareCommit(false, seq);
          commit.commit(seq, messages);
          System.out.println("ACK " + seq);
        } catch (Exception e) {
          System.out.println("ERR " + seq + " " + oneLine(e));
          closeQuietly(write);
          closeQuietly(commit);
          builder = builder(table, writer);
          write = builder.newWrite();
          commit = builder.newCommit();
        }
        System.out.flush();
      }
      write.close();
      commit.close();
      System.out.println("DONE");
      System.out.flush();
    }
  }

  private static StreamWriteBuilder builder(Table table, int writer) {
    return table
        .newStreamWriteBuilder()
        .withCommitUser("writer-" + writer + "-" + UUID.randomUUID());
  }

  private static String oneLine(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(" | ");
    }
    return text.toString().replace('\n', ' ');
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception ignored) {
      // The writer is replaced; its leftovers do not matter to the count.
    }
  }
}
