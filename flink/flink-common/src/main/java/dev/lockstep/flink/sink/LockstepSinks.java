package dev.lockstep.flink.sink;

import dev.lockstep.flink.LockstepFlinkOptions;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.TableShape;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.data.RowData;

/**
 * Builds the DataStream sink of a table:
 *
 * <pre>{@code
 * LockstepSinks.forTable(new TableLoader("file:///data/wh", Map.of(), Identifier.parse("shop.orders")))
 *     .commitUser("orders-ingest")
 *     .append(rows);             // a DataStream<RowData> in the table's column order
 * }</pre>
 */
public final class LockstepSinks {

  private final TableLoader loader;
  private String commitUser;
  private OverwriteMode overwrite;
  private Integer parallelism;

  private LockstepSinks(TableLoader loader) {
    this.loader = loader;
    this.commitUser = loader.options().get(LockstepFlinkOptions.COMMIT_USER);
  }

  public static LockstepSinks forTable(TableLoader loader) {
    return new LockstepSinks(loader);
  }

  /** Fixes the commit user (see {@link LockstepFlinkOptions#COMMIT_USER}). */
  public LockstepSinks commitUser(String user) {
    this.commitUser = user;
    return this;
  }

  /** Replaces partitions instead of appending (bounded jobs only). */
  public LockstepSinks overwrite(OverwriteMode mode) {
    this.overwrite = mode;
    return this;
  }

  public LockstepSinks parallelism(int writers) {
    this.parallelism = writers;
    return this;
  }

  /** The sink, with the table's shape read now (the table must exist). */
  public LockstepSink build() {
    try (TableLoader.Opened opened = loader.open()) {
      TableShape shape = new TableShape(opened.table().schema(), opened.table().options().bucket());
      return new LockstepSink(loader, shape, commitUser, overwrite);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open " + loader + ": " + e.getMessage(), e);
    }
  }

  /** Adds the sink to {@code rows}. */
  public DataStreamSink<RowData> append(DataStream<RowData> rows) {
    DataStreamSink<RowData> sink = rows.sinkTo(build()).name("Lockstep " + loader.identifier());
    if (parallelism != null) {
      sink.setParallelism(parallelism);
    }
    return sink;
  }
}
