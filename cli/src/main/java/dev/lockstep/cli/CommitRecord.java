package dev.lockstep.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * What one stress writer committed, as one line of its process's result file: {@code user
 * identifier snapshotId latencyNanos retries giveUps dropped k:v,k:v,...}.
 *
 * @param snapshotId the APPEND snapshot that holds this commit's rows
 * @param retries snapshot conflicts rebased inside the engine's commit loop
 * @param giveUps times the engine gave up (retry budget spent) and the writer committed the same
 *     identifier again, which the engine makes idempotent
 * @param droppedCompactions compactions dropped after a file conflict and redone later
 * @param keys the keys written, in write order
 * @param values the values written, in write order
 */
record CommitRecord(
    String user,
    long identifier,
    long snapshotId,
    long latencyNanos,
    int retries,
    int giveUps,
    int droppedCompactions,
    int[] keys,
    long[] values) {

  String toLine() {
    StringBuilder sb = new StringBuilder();
    sb.append(user)
        .append(' ')
        .append(identifier)
        .append(' ')
        .append(snapshotId)
        .append(' ')
        .append(latencyNanos)
        .append(' ')
        .append(retries)
        .append(' ')
        .append(giveUps)
        .append(' ')
        .append(droppedCompactions)
        .append(' ');
    for (int i = 0; i < keys.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(keys[i]).append(':').append(values[i]);
    }
    return sb.toString();
  }

  static CommitRecord parse(String line) {
    String[] parts = line.split(" ", -1);
    if (parts.length != 8) {
      throw new IllegalArgumentException("Corrupt stress result line: " + line);
    }
    List<int[]> kv = new ArrayList<>();
    String[] pairs = parts[7].isEmpty() ? new String[0] : parts[7].split(",");
    int[] keys = new int[pairs.length];
    long[] values = new long[pairs.length];
    for (int i = 0; i < pairs.length; i++) {
      int colon = pairs[i].indexOf(':');
      keys[i] = Integer.parseInt(pairs[i].substring(0, colon));
      values[i] = Long.parseLong(pairs[i].substring(colon + 1));
    }
    kv.clear();
    return new CommitRecord(
        parts[0],
        Long.parseLong(parts[1]),
        Long.parseLong(parts[2]),
        Long.parseLong(parts[3]),
        Integer.parseInt(parts[4]),
        Integer.parseInt(parts[5]),
        Integer.parseInt(parts[6]),
        keys,
        values);
  }
}
