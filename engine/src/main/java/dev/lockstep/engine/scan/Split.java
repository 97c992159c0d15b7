package dev.lockstep.engine.scan;

import dev.lockstep.engine.manifest.DataFileMeta;
import java.io.Serializable;
import java.util.List;

/** The live files of one bucket at one snapshot: the unit a reader reads (and merges). */
public record Split(long snapshotId, String partition, int bucket, List<DataFileMeta> files)
    implements Serializable {
  public Split {
    files = List.copyOf(files);
  }
}
