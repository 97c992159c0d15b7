package dev.lockstep.engine.compact;

import dev.lockstep.engine.manifest.DataFileMeta;
import java.util.List;

/** Files to merge into one sorted run at {@code outputLevel}. */
public record CompactUnit(List<DataFileMeta> inputs, int outputLevel) {
  public CompactUnit {
    inputs = List.copyOf(inputs);
  }
}
