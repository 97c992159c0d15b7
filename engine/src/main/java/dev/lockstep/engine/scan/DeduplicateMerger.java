package dev.lockstep.engine.scan;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.format.ReadOptions;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.types.DataTypeRoot;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * The {@code deduplicate} merge engine over the files of one primary-key bucket: a streaming k-way
 * merge that returns, in key order, one row per key — the one with the greatest (commit snapshot,
 * sequence), or, in a table with {@code sequence.field}, the greatest (sequence-field values,
 * commit snapshot, sequence), NULL being the smallest value. The winner may be a retraction ({@code
 * -U} or {@code -D}, {@link KeyValue#deleted()}; readers skip it). A row's commit snapshot is its
 * {@code _SNAPSHOT} column, or the file's commit snapshot when that column is -1 (rows of flushed,
 * never compacted files).
 *
 * <p>Every primary-key data file is sorted by key with each key once (flushes write a sorted
 * buffer, compactions write this merge's output), so memory holds one row per file. The result does
 * not depend on levels or on the order the files are given in. Not thread-safe; close it.
 */
public final class DeduplicateMerger implements Closeable {

  private final int[] keyIndexes;
  private final int fieldCount;
  private final int[] sequenceFields;
  private final TableStore table;
  private final List<FormatReader> readers = new ArrayList<>();

  /**
   * A binary min-heap of the heads with a current row, ordered by key ({@link #order}): {@code
   * heap[0..size)}. Not {@code java.util.PriorityQueue}, so that a head whose key is unique (the
   * common case) is advanced in place and sifted down once, instead of a poll and an add.
   */
  private Head[] heap;

  private int size;
  private final Comparator<Head> order;
  private final List<Head> same = new ArrayList<>();

  /**
   * The first key column is BIGINT or INT (never null in a key): the heap orders heads on that
   * column as a primitive long first ({@link Head#leading}), and compares the remaining key columns
   * only when it ties; otherwise on the key columns' values.
   */
  private final boolean primitiveLeading;

  private static final class Head {
    final FormatReader reader;
    final DataFileMeta file;
    KeyValue kv;

    /** The current row's first key column, when {@link #primitiveLeading}. */
    long leading;

    Head(FormatReader reader, DataFileMeta file) {
      this.reader = reader;
      this.file = file;
    }
  }

  /**
   * Opens every file.
   *
   * @throws IllegalStateException when a file is not committed yet (its rows have no place in
   *     history)
   */
  public DeduplicateMerger(
      TableStore table, String partition, int bucket, Collection<DataFileMeta> files)
      throws IOException {
    this(
        table, partition, bucket, files, opener(table, partition, bucket, file -> ReadOptions.ALL));
  }

  /**
   * Opens every file, each with the columns and row-group skipping {@code options} gives it: the
   * key, {@code sequence.field} and system columns must be read; skipping must keep every version
   * of a key that could win (see {@link Pushdown}).
   */
  public static DeduplicateMerger reading(
      TableStore table,
      String partition,
      int bucket,
      Collection<DataFileMeta> files,
      Function<DataFileMeta, ReadOptions> options)
      throws IOException {
    return new DeduplicateMerger(
        table, partition, bucket, files, opener(table, partition, bucket, options));
  }

  private static FileOpener opener(
      TableStore table, String partition, int bucket, Function<DataFileMeta, ReadOptions> options) {
    return file ->
        table
            .format()
            .createReader(
                table.fileIO(),
                table.bucketPath(partition, bucket).child(file.fileName()),
                table.dataFileRowType(),
                options.apply(file));
  }

  /** Opens one file's rows (for example from a cache of decoded files). */
  public interface FileOpener {
    FormatReader open(DataFileMeta file) throws IOException;
  }

  /** Opens every file through {@code opener}. */
  public DeduplicateMerger(
      TableStore table,
      String partition,
      int bucket,
      Collection<DataFileMeta> files,
      FileOpener opener)
      throws IOException {
    this.keyIndexes = table.schema().primaryKeyIndexes();
    this.fieldCount = table.schema().fields().size();
    this.sequenceFields = table.sequenceFieldIndexes();
    this.table = table;
    int[] keys = keyIndexes;
    DataTypeRoot first = table.schema().rowType().field(keys[0]).type().root();
    this.primitiveLeading = first == DataTypeRoot.BIGINT || first == DataTypeRoot.INT;
    int[] rest = Arrays.copyOfRange(keys, 1, keys.length);
    Comparator<Head> order;
    if (!primitiveLeading) {
      order = (a, b) -> RowComparator.compare(a.kv.fileRow(), b.kv.fileRow(), keys);
    } else if (rest.length == 0) {
      order = (a, b) -> Long.compare(a.leading, b.leading);
    } else {
      order =
          (a, b) -> {
            int c = Long.compare(a.leading, b.leading);
            return c != 0 ? c : RowComparator.compare(a.kv.fileRow(), b.kv.fileRow(), rest);
          };
    }
    this.order = order;
    this.heap = new Head[Math.max(1, files.size())];
    try {
      for (DataFileMeta file : files) {
        if (file.commitSnapshot() < 0) {
          throw new IllegalStateException(
              "File "
                  + file.fileName()
                  + " is not committed yet and"
                  + " cannot be merged by commit order.");
        }
        FormatReader reader = opener.open(file);
        readers.add(reader);
        Head head = new Head(reader, file);
        if (advance(head)) {
          add(head);
        }
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private boolean advance(Head head) throws IOException {
    GenericRow r = head.reader.next();
    if (r == null) {
      head.kv = null;
      return false;
    }
    long snapshot = (Long) r.get(fieldCount);
    head.kv =
        new KeyValue(
            r,
            keyIndexes,
            fieldCount,
            snapshot < 0 ? head.file.commitSnapshot() : snapshot,
            (Long) r.get(fieldCount + 1),
            table.rowKindOf(r));
    if (primitiveLeading) {
      head.leading = ((Number) r.get(keyIndexes[0])).longValue();
    }
    return true;
  }

  /** The winning row of the next key, or {@code null} at the end. */
  public KeyValue next() throws IOException {
    if (size == 0) {
      return null;
    }
    Head first = heap[0];
    KeyValue winner = first.kv;
    // The heads holding the same key as the top are the smallest of the others, so one of the
    // top's children holds it when any does: otherwise the key is in one file only.
    if ((size < 2 || !sameKey(heap[1], first)) && (size < 3 || !sameKey(heap[2], first))) {
      if (advance(first)) {
        siftDown(0, first);
      } else {
        removeTop();
      }
      return winner;
    }
    same.clear();
    same.add(first);
    removeTop();
    while (size > 0 && sameKey(heap[0], first)) {
      Head h = heap[0];
      removeTop();
      if (wins(h.kv, winner)) {
        winner = h.kv;
      }
      same.add(h);
    }
    for (Head h : same) {
      if (advance(h)) {
        add(h);
      }
    }
    return winner;
  }

  private void add(Head head) {
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (order.compare(head, heap[parent]) >= 0) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = head;
  }

  private void removeTop() {
    Head last = heap[--size];
    heap[size] = null;
    if (size > 0) {
      siftDown(0, last);
    }
  }

  /** Puts {@code head} at {@code i} and moves it down until no child is smaller. */
  private void siftDown(int i, Head head) {
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < size && order.compare(heap[right], heap[child]) < 0) {
        child = right;
      }
      if (order.compare(head, heap[child]) <= 0) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = head;
  }

  /** Whether the current rows of two heads hold the same key. */
  private boolean sameKey(Head a, Head b) {
    if (primitiveLeading && (a.leading != b.leading || keyIndexes.length == 1)) {
      return a.leading == b.leading;
    }
    return RowComparator.compare(a.kv.fileRow(), b.kv.fileRow(), keyIndexes) == 0;
  }

  /** Whether {@code a} wins its key over {@code b}. */
  private boolean wins(KeyValue a, KeyValue b) {
    if (sequenceFields.length > 0) {
      int c = RowComparator.compare(a.fileRow(), b.fileRow(), sequenceFields);
      if (c != 0) {
        return c > 0;
      }
    }
    return a.newerThan(b);
  }

  @Override
  public void close() throws IOException {
    IOException failure = null;
    for (FormatReader reader : readers) {
      try {
        reader.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    readers.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
