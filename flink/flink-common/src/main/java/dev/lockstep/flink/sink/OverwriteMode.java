package dev.lockstep.flink.sink;

import dev.lockstep.engine.data.PartitionPath;
import dev.lockstep.engine.types.RowType;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * What an {@code INSERT OVERWRITE} replaces: the partitions matching a static spec (every partition
 * whose values equal the spec's, even when no row is written), or, with an empty spec, the
 * partitions the job writes to (dynamic overwrite, as Paimon's default).
 */
public record OverwriteMode(Map<String, String> staticPartition, long baseSnapshotId)
    implements Serializable {

  /** No base yet: the sink takes the latest snapshot when the job is built. */
  public static final long NO_BASE = Long.MAX_VALUE;

  public OverwriteMode {
    staticPartition = new LinkedHashMap<>(staticPartition);
  }

  public OverwriteMode(Map<String, String> staticPartition) {
    this(staticPartition, NO_BASE);
  }

  public static OverwriteMode dynamic() {
    return new OverwriteMode(Map.of());
  }

  /**
   * The same overwrite whose base is snapshot {@code id}: it conflicts with files other commits
   * added to the overwritten partitions after {@code id} (0 = the table had no snapshot).
   */
  public OverwriteMode withBase(long id) {
    return new OverwriteMode(staticPartition, id);
  }

  public boolean hasBase() {
    return baseSnapshotId != NO_BASE;
  }

  public boolean isDynamic() {
    return staticPartition.isEmpty();
  }

  /** The engine's partition-path filter: {@code null} for dynamic overwrite. */
  public Predicate<String> partitionFilter(RowType partitionType) {
    if (isDynamic()) {
      return null;
    }
    for (String key : staticPartition.keySet()) {
      partitionType.indexOf(key);
    }
    PartitionPath paths = new PartitionPath(partitionType);
    Map<String, String> spec = Map.copyOf(staticPartition);
    return path -> {
      Map<String, Object> values = paths.toMap(path);
      for (Map.Entry<String, String> e : spec.entrySet()) {
        Object v = values.get(e.getKey());
        if (!Objects.equals(v == null ? null : String.valueOf(v), e.getValue())) {
          return false;
        }
      }
      return true;
    };
  }
}
