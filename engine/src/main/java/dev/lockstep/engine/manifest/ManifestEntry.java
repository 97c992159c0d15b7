package dev.lockstep.engine.manifest;

import java.util.Objects;

/**
 * One change to the file set: {@code kind} of {@code file} in bucket {@code bucket} of {@code
 * partition}.
 *
 * @param partition the partition path ({@code dt=2024-05-01/hh=03}), {@code ""} when unpartitioned
 * @param totalBuckets the table's bucket count when the file was written
 */
public record ManifestEntry(
    FileKind kind, String partition, int bucket, int totalBuckets, DataFileMeta file) {

  public ManifestEntry {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(file, "file");
  }

  /** Identifies the file across ADD and DELETE entries. */
  public FileId id() {
    return new FileId(partition, bucket, file.fileName());
  }

  /** A data file's identity in a table. */
  public record FileId(String partition, int bucket, String fileName) {}
}
