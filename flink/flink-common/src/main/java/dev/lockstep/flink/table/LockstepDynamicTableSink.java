package dev.lockstep.flink.table;

import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.TableShape;
import dev.lockstep.flink.sink.LockstepSink;
import dev.lockstep.flink.sink.OverwriteMode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.types.RowKind;

/**
 * {@code INSERT INTO} and {@code INSERT OVERWRITE} of a Lockstep table. Primary-key tables take an
 * upsert changelog (inserts, update-afters and deletes by key; the planner drops update-befores,
 * which a {@code +U} of the same key makes redundant, and materializes where the query's upsert key
 * is not the table's); append tables take inserts only, so an updating query is refused at planning
 * rather than failing at its first retraction (flink/README.md, "Flink SQL").
 */
final class LockstepDynamicTableSink
    implements DynamicTableSink, SupportsOverwrite, SupportsPartitioning {

  private final TableLoader loader;
  private final TableShape shape;
  private final String commitUser;
  private final Integer parallelism;
  private boolean overwrite;
  private Map<String, String> staticPartition = new LinkedHashMap<>();

  LockstepDynamicTableSink(
      TableLoader loader, TableShape shape, String commitUser, Integer parallelism) {
    this.loader = loader;
    this.shape = shape;
    this.commitUser = commitUser;
    this.parallelism = parallelism;
  }

  @Override
  public ChangelogMode getChangelogMode(ChangelogMode requested) {
    if (!shape.primaryKeyTable()) {
      return ChangelogMode.insertOnly();
    }
    return ChangelogMode.newBuilder()
        .addContainedKind(RowKind.INSERT)
        .addContainedKind(RowKind.UPDATE_AFTER)
        .addContainedKind(RowKind.DELETE)
        .build();
  }

  @Override
  public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
    if (overwrite && !context.isBounded()) {
      throw new ValidationException(
          "INSERT OVERWRITE into "
              + loader.identifier()
              + " needs a"
              + " bounded input (batch mode): a streaming overwrite would replace partitions at every"
              + " checkpoint. Use INSERT INTO, or run the overwrite with 'execution.runtime-mode' ="
              + " 'batch'.");
    }
    OverwriteMode mode = overwrite ? new OverwriteMode(staticPartition) : null;
    LockstepSink sink = new LockstepSink(loader, shape, commitUser, mode);
    return parallelism == null ? SinkV2Provider.of(sink) : SinkV2Provider.of(sink, parallelism);
  }

  @Override
  public void applyOverwrite(boolean overwrite) {
    this.overwrite = overwrite;
  }

  @Override
  public void applyStaticPartition(Map<String, String> partition) {
    for (String key : partition.keySet()) {
      if (!shape.partitionKeys().contains(key)) {
        throw new ValidationException(
            "'"
                + key
                + "' is not a partition key of "
                + loader.identifier()
                + "; its partition keys are "
                + shape.partitionKeys()
                + ".");
      }
    }
    this.staticPartition = new LinkedHashMap<>(partition);
  }

  @Override
  public DynamicTableSink copy() {
    LockstepDynamicTableSink copy =
        new LockstepDynamicTableSink(loader, shape, commitUser, parallelism);
    copy.overwrite = overwrite;
    copy.staticPartition = new LinkedHashMap<>(staticPartition);
    return copy;
  }

  @Override
  public String asSummaryString() {
    return "Lockstep " + loader.identifier();
  }
}
