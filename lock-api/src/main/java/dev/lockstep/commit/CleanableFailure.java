package dev.lockstep.commit;

/**
 * Marks a failure after which nothing of the commit was published, so that the files the commit
 * wrote for it (manifests, and data files the caller gives up on) may be deleted.
 *
 * <p>Cleanup code asks {@code failure instanceof CleanableFailure} and keeps every file otherwise:
 * whether a failure is safe to clean up after never depends on the order of {@code catch} clauses.
 * {@link CommitStateUnknownException} never carries it (the commit may have landed), and neither
 * does an unexpected failure (a store error in the middle of a commit, a bug): what such a failure
 * leaves behind is kept, and orphan-file removal collects it once it is old enough.
 */
public interface CleanableFailure {}
