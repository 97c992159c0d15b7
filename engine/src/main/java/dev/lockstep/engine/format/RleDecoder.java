package dev.lockstep.engine.format;

import java.io.IOException;
import java.util.Arrays;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;

/**
 * Parquet's RLE / bit-packing hybrid encoding (definition levels, dictionary ids, v2 booleans),
 * decoded straight off a page's byte array: a run header (unsigned varint), then either one value
 * repeated ({@code header >>> 1} times, in {@code ceil(width / 8)} little-endian bytes) or {@code
 * header >>> 1} groups of 8 bit-packed values, unpacked 8 at a time by parquet-column's {@link
 * BytePacker}. Unlike parquet-column's {@code RunLengthBitPackingHybridDecoder} it allocates
 * nothing per run, and {@link #readPresent} fills a repeated run of definition levels in one step
 * (a column without NULLs is one such run per page).
 */
final class RleDecoder {

  private final int width;
  private final int valueBytes;
  private final BytePacker packer;
  private final byte[] data;
  private final int end;
  private final int[] group = new int[8];
  private int position;
  private int repeatLeft;
  private int repeated;
  private int groupsLeft;
  private int groupPosition = 8;

  /** Decodes {@code data[offset, end)} as values of {@code width} bits. */
  RleDecoder(int width, byte[] data, int offset, int end) {
    this.width = width;
    this.valueBytes = (width + 7) / 8;
    this.packer = Packer.LITTLE_ENDIAN.newBytePacker(width);
    this.data = data;
    this.position = offset;
    this.end = end;
  }

  int readInt() throws IOException {
    while (true) {
      if (repeatLeft > 0) {
        repeatLeft--;
        return repeated;
      }
      if (groupPosition < 8) {
        return group[groupPosition++];
      }
      if (groupsLeft > 0) {
        unpackGroup();
        continue;
      }
      readHeader();
    }
  }

  /**
   * Reads {@code n} definition levels as "value present" flags ({@code level == max}) into {@code
   * present[0, n)}.
   */
  void readPresent(boolean[] present, int n, int max) throws IOException {
    int i = 0;
    while (i < n) {
      if (repeatLeft > 0) {
        int take = Math.min(repeatLeft, n - i);
        Arrays.fill(present, i, i + take, repeated == max);
        repeatLeft -= take;
        i += take;
      } else if (groupPosition < 8) {
        present[i++] = group[groupPosition++] == max;
      } else if (groupsLeft > 0) {
        unpackGroup();
      } else {
        readHeader();
      }
    }
  }

  private void unpackGroup() {
    if (position + width <= end) {
      packer.unpack8Values(data, position, group, 0);
    } else {
      // A last group cut short: unpack from zero-padded bytes.
      byte[] padded = new byte[width];
      System.arraycopy(data, position, padded, 0, Math.max(0, end - position));
      packer.unpack8Values(padded, 0, group, 0);
    }
    position += width;
    groupsLeft--;
    groupPosition = 0;
  }

  private void readHeader() throws IOException {
    int header = 0;
    int shift = 0;
    while (true) {
      if (position >= end) {
        throw new IOException("Parquet RLE/bit-packed run ended before its values");
      }
      int b = data[position++] & 0xff;
      header |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        break;
      }
      shift += 7;
    }
    if ((header & 1) == 0) {
      int value = 0;
      for (int i = 0; i < valueBytes; i++) {
        if (position >= end) {
          throw new IOException("Parquet RLE run ended before its value");
        }
        value |= (data[position++] & 0xff) << (8 * i);
      }
      repeated = value;
      repeatLeft = header >>> 1;
    } else {
      groupsLeft = header >>> 1;
    }
  }
}
