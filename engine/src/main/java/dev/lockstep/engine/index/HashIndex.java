package dev.lockstep.engine.index;

import java.util.Arrays;

/**
 * The key-hash → bucket index of one partition of a dynamic-bucket table, in memory.
 *
 * <p>Most entries sit in two sorted parallel arrays (a 4-byte hash and a 2-byte bucket: 6 bytes per
 * key); entries added since the last merge sit in a small {@link IntIntMap} that is merged into the
 * arrays once it holds more than an eighth of them (so at most about 1.4 bytes per key more). No
 * boxed objects. A hash keeps the first bucket it was put in: the committed index never moves a
 * key.
 */
public final class HashIndex {

  private static final int MIN_RECENT = 4096;

  private int[] hashes = new int[0];
  private short[] buckets = new short[0];
  private IntIntMap recent = new IntIntMap();
  private int[] counts = new int[4];
  private int bucketCount;

  /** The bucket of {@code hash}, or {@code -1}. */
  public int get(int hash) {
    int b = recent.get(hash);
    if (b >= 0) {
      return b;
    }
    int i = Arrays.binarySearch(hashes, hash);
    return i >= 0 ? buckets[i] : -1;
  }

  /**
   * Puts {@code hash} into {@code bucket} unless it has a bucket already.
   *
   * @return the hash's bucket afterwards (the earlier one when it had one)
   */
  public int putIfAbsent(int hash, int bucket) {
    int existing = get(hash);
    if (existing >= 0) {
      return existing;
    }
    recent.put(hash, bucket);
    if (bucket >= counts.length) {
      counts = Arrays.copyOf(counts, Math.max(bucket + 1, counts.length * 2));
    }
    counts[bucket]++;
    bucketCount = Math.max(bucketCount, bucket + 1);
    if (recent.size() > Math.max(MIN_RECENT, hashes.length / 8)) {
      merge();
    }
    return bucket;
  }

  /** Hashes in {@code bucket}. */
  public int count(int bucket) {
    return bucket < counts.length ? counts[bucket] : 0;
  }

  /** One more than the highest bucket holding a hash (0 when empty). */
  public int bucketCount() {
    return bucketCount;
  }

  /** Hashes in the index. */
  public int size() {
    return hashes.length + recent.size();
  }

  /** Bytes of the arrays holding the entries (what the index costs in memory, headers aside). */
  public long bytes() {
    return 6L * hashes.length + recent.bytes() + 4L * counts.length;
  }

  /** Moves the recent entries into the sorted arrays. */
  public void merge() {
    if (recent.size() == 0) {
      return;
    }
    long[] added = new long[recent.size()];
    int[] n = {0};
    recent.forEach((h, b) -> added[n[0]++] = ((long) h << 32) | (b & 0xffffffffL));
    Arrays.sort(added);
    int[] mergedHashes = new int[hashes.length + added.length];
    short[] mergedBuckets = new short[mergedHashes.length];
    int i = 0;
    int j = 0;
    int k = 0;
    while (i < hashes.length || j < added.length) {
      if (j >= added.length || (i < hashes.length && hashes[i] < (int) (added[j] >> 32))) {
        mergedHashes[k] = hashes[i];
        mergedBuckets[k++] = buckets[i++];
      } else {
        mergedHashes[k] = (int) (added[j] >> 32);
        mergedBuckets[k++] = (short) added[j++];
      }
    }
    hashes = mergedHashes;
    buckets = mergedBuckets;
    recent = new IntIntMap();
  }
}
