package dev.lockstep.paimon.fs;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.Path;

/**
 * Serves Paimon's {@code s3://} paths from Lockstep's S3 store. Paimon refuses two loaders for one
 * scheme: use this jar instead of {@code paimon-s3}, not next to it.
 */
public final class LockstepS3Loader implements FileIOLoader {

  private static final long serialVersionUID = 1L;

  @Override
  public String getScheme() {
    return "s3";
  }

  @Override
  public FileIO load(Path path) {
    return new LockstepFileIO(StoreKind.S3);
  }
}
