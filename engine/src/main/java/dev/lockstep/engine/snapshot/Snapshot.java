package dev.lockstep.engine.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Objects;

/**
 * One version of a table, stored as {@code snapshot/snapshot-<id>} (JSON) through the commit
 * protocol. The files of the table at this version are the manifests of {@code baseManifestList}
 * (everything before) plus {@code deltaManifestList} (this commit's changes).
 *
 * @param commitId unique per commit attempt, so that equal bytes mean this very commit
 * @param commitIdentifier the writer's identifier for the batch (for example a checkpoint id);
 *     re-committing a (commitUser, commitIdentifier) pair that is in a snapshot is a no-op
 * @param totalRecordCount rows in all live files (before merging keys)
 * @param deltaRecordCount rows added minus rows deleted by this commit's files
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Snapshot(int version, long id, long schemaId, String baseManifestList,
    String deltaManifestList, String commitUser, long commitIdentifier, CommitKind commitKind,
    long timeMillis, long totalRecordCount, long deltaRecordCount, String commitId) {

  public static final int CURRENT_VERSION = 1;

  public Snapshot {
    Objects.requireNonNull(baseManifestList, "baseManifestList");
    Objects.requireNonNull(deltaManifestList, "deltaManifestList");
    Objects.requireNonNull(commitUser, "commitUser");
    Objects.requireNonNull(commitKind, "commitKind");
    Objects.requireNonNull(commitId, "commitId");
  }
}
