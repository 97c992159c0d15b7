package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Random;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

/**
 * The engine's RLE / bit-packing hybrid decoder reads what parquet-column's encoder writes: for
 * every width 0..32, values in repeated runs, in varied stretches (bit-packed groups) and mixed,
 * through {@code readInt} and through {@code readPresent} (definition levels), at an offset inside
 * a larger array.
 */
class RleDecoderTest {

  @Test
  void decodesWhatParquetEncodesForEveryWidth() throws IOException {
    Random random = new Random(3);
    for (int width = 0; width <= 32; width++) {
      for (int round = 0; round < 5; round++) {
        int n = 1 + random.nextInt(3000);
        int[] values = new int[n];
        long bound = width == 0 ? 1 : 1L << width;
        for (int i = 0; i < n; ) {
          int run = random.nextBoolean() ? 1 + random.nextInt(50) : 1;
          int value = (int) (random.nextLong() & (bound - 1));
          for (int k = 0; k < run && i < n; k++, i++) {
            values[i] = round == 0 ? value : (int) (random.nextLong() & (bound - 1));
            if (round == 1) {
              values[i] = value;
            }
          }
        }
        RunLengthBitPackingHybridEncoder encoder =
            new RunLengthBitPackingHybridEncoder(width, 64, 1 << 20, new HeapByteBufferAllocator());
        for (int v : values) {
          encoder.writeInt(v);
        }
        byte[] encoded = encoder.toBytes().toByteArray();
        byte[] inside = new byte[encoded.length + 10];
        System.arraycopy(encoded, 0, inside, 7, encoded.length);
        RleDecoder decoder = new RleDecoder(width, inside, 7, 7 + encoded.length);
        for (int i = 0; i < n; i++) {
          assertThat(decoder.readInt()).as("width %d, value %d", width, i).isEqualTo(values[i]);
        }
        int max = values[random.nextInt(n)];
        RleDecoder levels = new RleDecoder(width, encoded, 0, encoded.length);
        boolean[] present = new boolean[n];
        int split = random.nextInt(n + 1);
        levels.readPresent(present, split, max);
        boolean[] rest = new boolean[n - split];
        levels.readPresent(rest, n - split, max);
        System.arraycopy(rest, 0, present, split, rest.length);
        for (int i = 0; i < n; i++) {
          assertThat(present[i]).as("width %d, level %d", width, i).isEqualTo(values[i] == max);
        }
      }
    }
  }
}
