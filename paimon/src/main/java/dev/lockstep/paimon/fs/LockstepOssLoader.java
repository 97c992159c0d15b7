package dev.lockstep.paimon.fs;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.Path;

/**
 * Serves Paimon's {@code oss://} paths from Lockstep's OSS store. Paimon refuses two loaders for
 * one scheme: use this jar instead of {@code paimon-oss} / {@code paimon-jindo}, not next to it.
 */
public final class LockstepOssLoader implements FileIOLoader {

  private static final long serialVersionUID = 1L;

  @Override
  public String getScheme() {
    return "oss";
  }

  @Override
  public FileIO load(Path path) {
    return new LockstepFileIO(StoreKind.OSS);
  }
}
