package dev.lockstep.flink.sink;

import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.TableShape;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;

/**
 * Flink 1.20's sink: {@code Sink.createWriter(InitContext)} is still the abstract method (the
 * {@code WriterInitContext} variant is a default that wraps it); Flink 2.x removed it.
 */
public final class LockstepSink extends LockstepSinkBase {

  private static final long serialVersionUID = 1L;

  public LockstepSink(
      TableLoader loader, TableShape shape, String commitUser, OverwriteMode overwrite) {
    super(loader, shape, commitUser, overwrite);
  }

  @Override
  @Deprecated
  public SinkWriter<RowData> createWriter(InitContext context) throws IOException {
    return openWriter(List.of());
  }

  @Override
  public SinkWriter<RowData> createWriter(WriterInitContext context) throws IOException {
    return openWriter(List.of());
  }
}
