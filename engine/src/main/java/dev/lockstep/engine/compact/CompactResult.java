package dev.lockstep.engine.compact;

import dev.lockstep.engine.manifest.DataFileMeta;
import java.util.List;

/** A finished compaction of one bucket: {@code before} replaced by {@code after} (uncommitted). */
public record CompactResult(
    String partition, int bucket, List<DataFileMeta> before, List<DataFileMeta> after) {
  public CompactResult {
    before = List.copyOf(before);
    after = List.copyOf(after);
  }
}
