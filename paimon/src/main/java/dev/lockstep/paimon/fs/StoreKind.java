package dev.lockstep.paimon.fs;

import dev.lockstep.fs.FileIOLoader;
import dev.lockstep.fs.oss.OssFileIOLoader;
import dev.lockstep.fs.s3.S3FileIOLoader;
import java.util.Locale;
import java.util.Map;

/** The Lockstep stores the Paimon FileIOs serve from, with how Paimon's options map onto each. */
enum StoreKind {

  /**
   * fs-s3: Paimon's {@code s3.*} / {@code s3a.*} / {@code fs.s3a.*} keys, see {@link
   * PaimonS3Options}.
   */
  S3 {
    @Override
    FileIOLoader loader() {
      return new S3FileIOLoader();
    }

    @Override
    Map<String, String> lockstepOptions(Map<String, String> options) {
      return PaimonS3Options.toLockstep(options);
    }

    @Override
    boolean isStoreOption(String key) {
      String lower = key.toLowerCase(Locale.ROOT);
      return lower.startsWith("s3.") || lower.startsWith("s3a.") || lower.startsWith("fs.s3a.");
    }

    @Override
    String conditionalWriteHint() {
      return "'s3.conditional-writes' is false, or the endpoint does not honour If-None-Match: *";
    }

    @Override
    boolean needsDirectoryMarker() {
      return false;
    }
  },

  /** fs-oss: Paimon's {@code fs.oss.*} keys are Lockstep's own. */
  OSS {
    @Override
    FileIOLoader loader() {
      return new OssFileIOLoader();
    }

    @Override
    Map<String, String> lockstepOptions(Map<String, String> options) {
      // Lockstep's OSS keys are hadoop-aliyun's; the hadoop-aliyun settings it does not read go.
      return ForeignStoreKeys.withoutForeignKeys(dev.lockstep.fs.oss.OssOptions.OPTIONS, options);
    }

    @Override
    boolean isStoreOption(String key) {
      return key.toLowerCase(Locale.ROOT).startsWith("fs.oss.");
    }

    @Override
    String conditionalWriteHint() {
      return "the store does not honour x-oss-forbid-overwrite";
    }

    @Override
    boolean needsDirectoryMarker() {
      return true;
    }
  };

  abstract FileIOLoader loader();

  abstract Map<String, String> lockstepOptions(Map<String, String> options);

  abstract boolean isStoreOption(String key);

  /** Why a store of this kind may lack an atomic create, for the refusal message. */
  abstract String conditionalWriteHint();

  /**
   * Whether the store's {@code mkdirs} leaves nothing behind, so that an empty directory is absent.
   */
  abstract boolean needsDirectoryMarker();
}
