package dev.lockstep.paimon.fs;

import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;

/** A Lockstep {@link dev.lockstep.fs.FileStatus} as Paimon's {@link FileStatus} (1.3 API). */
record PaimonFileStatus(Path getPath, long getLen, boolean isDir, long getModificationTime)
    implements FileStatus {

  static PaimonFileStatus of(dev.lockstep.fs.FileStatus status) {
    return new PaimonFileStatus(
        LockstepFileIO.toPaimon(status.path()),
        status.length(),
        status.directory(),
        status.modificationTimeMillis());
  }
}
