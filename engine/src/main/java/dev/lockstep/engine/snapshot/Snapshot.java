package dev.lockstep.engine.snapshot;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * One version of a table, stored as {@code snapshot/snapshot-<id>} (JSON) through the commit
 * protocol. The files of the table at this version are, in order: the manifests of {@code
 * baseManifestList}, those of each of {@code priorDeltas} (the delta lists of the snapshots since
 * that base list was written; they let a commit attempt reuse the previous base list instead of
 * writing one), and those of {@code deltaManifestList} (this commit's changes).
 *
 * @param commitId unique per commit attempt, so that equal bytes mean this very commit
 * @param commitIdentifier the writer's identifier for the batch (for example a checkpoint id);
 *     re-committing a (commitUser, commitIdentifier) pair that is in a snapshot is a no-op
 * @param totalRecordCount rows in all live files (before merging keys)
 * @param deltaRecordCount rows added minus rows deleted by this commit's files
 * @param fencing the lease this snapshot was committed under ({@code commit.strategy=lock}): which
 *     lock and its fencing token; {@code null} for lock-free commits and in files written before
 *     the field existed (absent from the JSON then)
 * @param parentCommitId the {@code commitId} of the snapshot this one was built on (its base,
 *     snapshot {@code id - 1}); {@code null} for snapshot 1 of a table and in files written before
 *     the field existed. It links the history, so that a snapshot published under an id that had
 *     existed before (and expired) can be told from the one that history continues from.
 * @param changelogManifestList the manifest list of this commit's changelog files ({@code
 *     changelog-producer} {@code input} or {@code lookup}), {@code null} when it has none (absent
 *     from the JSON then); a changelog list is named by this one snapshot only
 * @param changelogRecordCount rows in this commit's changelog files, {@code null} without them
 * @param indexManifest the index manifest naming every index file of the table at this snapshot
 *     (the key-hash index of dynamic buckets; see {@code manifest.IndexManifest}); {@code null}
 *     when the table has none (absent from the JSON then)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Snapshot(
    int version,
    long id,
    long schemaId,
    String baseManifestList,
    List<PriorDelta> priorDeltas,
    String deltaManifestList,
    String commitUser,
    long commitIdentifier,
    CommitKind commitKind,
    long timeMillis,
    long totalRecordCount,
    long deltaRecordCount,
    String commitId,
    @JsonInclude(JsonInclude.Include.NON_NULL) Fencing fencing,
    @JsonInclude(JsonInclude.Include.NON_NULL) String parentCommitId,
    @JsonInclude(JsonInclude.Include.NON_NULL) String changelogManifestList,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long changelogRecordCount,
    @JsonInclude(JsonInclude.Include.NON_NULL) String indexManifest) {

  public static final int CURRENT_VERSION = 1;

  @JsonCreator
  public Snapshot {
    Objects.requireNonNull(baseManifestList, "baseManifestList");
    Objects.requireNonNull(deltaManifestList, "deltaManifestList");
    Objects.requireNonNull(commitUser, "commitUser");
    Objects.requireNonNull(commitKind, "commitKind");
    Objects.requireNonNull(commitId, "commitId");
    priorDeltas = priorDeltas == null ? List.of() : List.copyOf(priorDeltas);
  }

  /** A snapshot without changelog files and index files. */
  public Snapshot(
      int version,
      long id,
      long schemaId,
      String baseManifestList,
      List<PriorDelta> priorDeltas,
      String deltaManifestList,
      String commitUser,
      long commitIdentifier,
      CommitKind commitKind,
      long timeMillis,
      long totalRecordCount,
      long deltaRecordCount,
      String commitId,
      Fencing fencing,
      String parentCommitId) {
    this(
        version,
        id,
        schemaId,
        baseManifestList,
        priorDeltas,
        deltaManifestList,
        commitUser,
        commitIdentifier,
        commitKind,
        timeMillis,
        totalRecordCount,
        deltaRecordCount,
        commitId,
        fencing,
        parentCommitId,
        null,
        null,
        null);
  }

  /** This snapshot as committed under {@code fencing} ({@code null}: without a lease). */
  public Snapshot withFencing(Fencing fencing) {
    return new Snapshot(
        version,
        id,
        schemaId,
        baseManifestList,
        priorDeltas,
        deltaManifestList,
        commitUser,
        commitIdentifier,
        commitKind,
        timeMillis,
        totalRecordCount,
        deltaRecordCount,
        commitId,
        fencing,
        parentCommitId,
        changelogManifestList,
        changelogRecordCount,
        indexManifest);
  }

  /**
   * Whether {@code next}, snapshot {@code id + 1}, was built on this one (unknown in old files).
   */
  public boolean isParentOf(Snapshot next) {
    return next.id() == id + 1
        && (next.parentCommitId() == null || next.parentCommitId().equals(commitId));
  }

  /** The delta manifest list of an earlier snapshot, whose entries that snapshot committed. */
  public record PriorDelta(long snapshotId, String deltaManifestList) {}

  /**
   * The lease a snapshot was committed under, as lock-api's {@code FencingToken}: {@code lock} is
   * {@code <commit.fencing-scope>:<lock key>}, {@code token} the lease's fencing token. Tokens of
   * one lock strictly increase with every new holder, so in consecutive lock-committed snapshots of
   * a table they never go down.
   */
  public record Fencing(String lock, long token) {

    public Fencing {
      Objects.requireNonNull(lock, "lock");
    }
  }
}
