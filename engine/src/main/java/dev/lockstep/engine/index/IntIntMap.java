package dev.lockstep.engine.index;

import java.util.Arrays;

/**
 * An open-addressing map from int keys to non-negative int values, without boxing: two int arrays,
 * linear probing, at most 3/4 full. {@code -1} in the value array marks a free slot.
 */
public final class IntIntMap {

  private int[] keys;
  private int[] values;
  private int size;
  private int mask;

  public IntIntMap() {
    this(16);
  }

  public IntIntMap(int expected) {
    int capacity = Integer.highestOneBit(Math.max(4, (int) (expected / 0.75f) + 1) - 1) << 1;
    keys = new int[capacity];
    values = new int[capacity];
    Arrays.fill(values, -1);
    mask = capacity - 1;
  }

  public int size() {
    return size;
  }

  /** The value of {@code key}, or {@code -1}. */
  public int get(int key) {
    for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
      int v = values[i];
      if (v < 0) {
        return -1;
      }
      if (keys[i] == key) {
        return v;
      }
    }
  }

  /** Sets {@code key} to {@code value} ({@code >= 0}); returns the previous value or {@code -1}. */
  public int put(int key, int value) {
    if (value < 0) {
      throw new IllegalArgumentException("negative value " + value);
    }
    if (size + 1 > (mask + 1) * 3 / 4) {
      grow();
    }
    for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
      int v = values[i];
      if (v < 0) {
        keys[i] = key;
        values[i] = value;
        size++;
        return -1;
      }
      if (keys[i] == key) {
        values[i] = value;
        return v;
      }
    }
  }

  /** Calls {@code action} for every entry, in no particular order. */
  public void forEach(IntIntConsumer action) {
    for (int i = 0; i < values.length; i++) {
      if (values[i] >= 0) {
        action.accept(keys[i], values[i]);
      }
    }
  }

  /** Bytes of the two arrays. */
  public long bytes() {
    return 8L * values.length;
  }

  private void grow() {
    int[] oldKeys = keys;
    int[] oldValues = values;
    keys = new int[oldKeys.length * 2];
    values = new int[oldKeys.length * 2];
    Arrays.fill(values, -1);
    mask = keys.length - 1;
    size = 0;
    for (int i = 0; i < oldValues.length; i++) {
      if (oldValues[i] >= 0) {
        put(oldKeys[i], oldValues[i]);
      }
    }
  }

  private static int mix(int h) {
    h *= 0x9E3779B9;
    return h ^ (h >>> 16);
  }

  /** An (int, int) action. */
  @FunctionalInterface
  public interface IntIntConsumer {
    void accept(int key, int value);
  }
}
