package dev.lockstep.fs.oss.testing;

/**
 * CRC-64/ECMA-182 as OSS reports it in {@code x-oss-hash-crc64ecma} ("CRC-64" in the OSS data
 * integrity documentation: reflected polynomial 0xC96C5795D7870F42, initial value and final XOR all
 * ones). The SDK compares it with its own checksum of uploads and full downloads.
 */
final class Crc64 {

  private static final long[] TABLE = new long[256];

  static {
    for (int n = 0; n < 256; n++) {
      long crc = n;
      for (int k = 0; k < 8; k++) {
        crc = (crc & 1) == 1 ? (crc >>> 1) ^ 0xC96C5795D7870F42L : crc >>> 1;
      }
      TABLE[n] = crc;
    }
  }

  private Crc64() {}

  static long of(byte[] data) {
    long crc = ~0L;
    for (byte b : data) {
      crc = TABLE[(int) ((crc ^ b) & 0xff)] ^ (crc >>> 8);
    }
    return ~crc;
  }

  /** The header value: the checksum as an unsigned decimal. */
  static String header(byte[] data) {
    return Long.toUnsignedString(of(data));
  }
}
