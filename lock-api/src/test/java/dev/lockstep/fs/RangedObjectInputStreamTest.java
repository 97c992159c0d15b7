package dev.lockstep.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The seek and range decisions that fs-s3 and fs-oss share, on an object held in memory: which
 * ranges are opened, which answers are aborted or drained. The stores' own tests run the same class
 * against s3proxy and the OSS test server.
 */
class RangedObjectInputStreamTest {

  private static final byte[] CONTENT = content(1000);

  @Test
  void shortForwardSeeksSkipOnTheOpenAnswerAndOthersOpenARangeFromThePosition() throws IOException {
    try (MemoryObject in = new MemoryObject(false)) {
      assertThat(in.readNBytes(10)).isEqualTo(slice(0, 10));
      in.seek(60); // 50 ahead: within the skip limit (100)
      assertThat(in.read()).isEqualTo(CONTENT[60] & 0xff);
      assertThat(in.opened).as("still the first answer").isEmpty();
      in.seek(500);
      assertThat(in.readNBytes(5)).isEqualTo(slice(500, 5));
      in.seek(20); // backwards
      assertThat(in.read()).isEqualTo(CONTENT[20] & 0xff);
      assertThat(in.opened).containsExactly("500-", "20-");
      assertThat(in.released)
          .as("939 and 495 bytes were left: above the drain limit (50)")
          .containsExactly("abort", "abort");
      in.seek(CONTENT.length);
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void positionedReadsOpenExactlyTheirRangeAndDoNotMove() throws IOException {
    try (MemoryObject in = new MemoryObject(false)) {
      in.seek(7);
      byte[] middle = new byte[10];
      in.readFully(200, middle, 0, 10);
      assertThat(middle).isEqualTo(slice(200, 10));
      assertThat(in.position()).isEqualTo(7);
      assertThat(in.opened).containsExactly("200-209");
      assertThat(in.released).containsExactly("close");
      assertThatThrownBy(() -> in.readFully(995, new byte[10], 0, 10))
          .isInstanceOf(EOFException.class)
          .hasMessageContaining("mem://object");
      assertThat(in.opened).as("nothing sent for a range past the end").hasSize(1);
    }
  }

  @Test
  void closingDrainsASmallRestAndAbortsALargeOne() throws IOException {
    MemoryObject nearTheEnd = new MemoryObject(false);
    nearTheEnd.seek(960);
    nearTheEnd.read();
    nearTheEnd.close();
    assertThat(nearTheEnd.released)
        .as("the first answer, dropped by the seek; then 39 bytes left")
        .containsExactly("abort", "close");
    assertThatThrownBy(nearTheEnd::read).hasMessageContaining("closed");

    MemoryObject atTheStart = new MemoryObject(false);
    atTheStart.read();
    atTheStart.close();
    assertThat(atTheStart.released).containsExactly("abort");
  }

  @Test
  void aBrokenReadIsTriedOnceMoreOnANewRangeOnlyWhenTheStoreAsksForIt() throws IOException {
    try (MemoryObject reopening = new MemoryObject(true)) {
      reopening.breakNextAnswer = true;
      reopening.seek(300);
      assertThat(reopening.readNBytes(4)).isEqualTo(slice(300, 4));
      assertThat(reopening.opened).containsExactly("300-", "300-");
      assertThat(reopening.released)
          .as("the first answer (the seek), then the broken one")
          .containsExactly("abort", "abort");
    }
    try (MemoryObject failing = new MemoryObject(false)) {
      failing.breakNextAnswer = true;
      failing.seek(300);
      assertThatThrownBy(failing::read)
          .isInstanceOf(IOException.class)
          .hasMessage("Reading mem://object at 300 failed");
      assertThat(failing.position()).isEqualTo(300);
    }
  }

  @Test
  void anAnswerThatEndsBeforeTheLengthIsAnEndOfFileNotAShortObject() throws IOException {
    try (MemoryObject in = new MemoryObject(false)) {
      in.truncateAnswersAt = 600;
      in.seek(590);
      assertThat(in.readNBytes(10)).isEqualTo(slice(590, 10));
      assertThatThrownBy(in::read)
          .isInstanceOf(EOFException.class)
          .hasMessageContaining("ended at 600, before its length 1000");
    }
  }

  @Test
  void aFooterReadFromTheTailAndASeekBackCostOneRangeThatEndsWhereTheTailStarts()
      throws IOException {
    try (MemoryObject in = MemoryObject.openedWithTail(100)) {
      in.seek(CONTENT.length - 8); // a Parquet reader: the footer's length and magic
      assertThat(in.readNBytes(8)).isEqualTo(slice(992, 8));
      in.seek(950); // back to the footer
      assertThat(in.available()).isEqualTo(50);
      assertThat(in.readNBytes(42)).isEqualTo(slice(950, 42));
      assertThat(in.opened).as("all from the tail").isEmpty();
      in.seek(4); // the column chunks, then on into the tail
      assertThat(in.readNBytes(990)).isEqualTo(slice(4, 990));
      assertThat(in.opened).containsExactly("4-899");
      assertThat(in.released).as("read to its end: nothing left to drain").containsExactly("close");
      assertThat(in.read()).isEqualTo(CONTENT[994] & 0xff);
      in.seek(CONTENT.length);
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.available()).isZero();
    }
  }

  @Test
  void positionedReadsTakeWhatTheTailHoldsAndFetchOnlyTheRest() throws IOException {
    try (MemoryObject in = MemoryObject.openedWithTail(100)) {
      byte[] inTail = new byte[30];
      in.readFully(920, inTail, 0, 30);
      assertThat(inTail).isEqualTo(slice(920, 30));
      assertThat(in.opened).isEmpty();
      byte[] across = new byte[40];
      in.readFully(880, across, 0, 40);
      assertThat(across).isEqualTo(slice(880, 40));
      assertThat(in.opened).containsExactly("880-899");
      assertThat(in.position()).isZero();
      assertThatThrownBy(() -> in.readFully(995, new byte[10], 0, 10))
          .isInstanceOf(EOFException.class);
    }
  }

  @Test
  void anObjectNoLongerThanItsTailIsReadWithoutAnotherRequest() throws IOException {
    try (MemoryObject in = MemoryObject.openedWithTail(CONTENT.length)) {
      assertThat(in.readAllBytes()).isEqualTo(CONTENT);
      in.seek(500);
      assertThat(in.read()).isEqualTo(CONTENT[500] & 0xff);
      in.seek(3);
      assertThat(in.readNBytes(2)).isEqualTo(slice(3, 2));
      assertThat(in.opened).isEmpty();
    }
    assertThatThrownBy(() -> new MemoryObject(new byte[CONTENT.length + 1]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRangeBelowTheTailThatEndsEarlyIsAnEndOfFileNamingTheTail() throws IOException {
    try (MemoryObject in = MemoryObject.openedWithTail(100)) {
      in.truncateAnswersAt = 600;
      in.seek(590);
      assertThat(in.readNBytes(10)).isEqualTo(slice(590, 10));
      assertThatThrownBy(in::read)
          .isInstanceOf(EOFException.class)
          .hasMessageContaining("ended at 600, before the tail it was opened with at 900");
    }
  }

  /** An object in memory; records every range opened and how every answer was let go of. */
  private static final class MemoryObject extends RangedObjectInputStream<InputStream> {
    final List<String> opened = new ArrayList<>();
    final List<String> released = new ArrayList<>();
    boolean breakNextAnswer;
    int truncateAnswersAt = CONTENT.length;

    MemoryObject(boolean reopenOnFailure) {
      super(
          "mem://object",
          CONTENT.length,
          new ByteArrayInputStream(CONTENT),
          100,
          50,
          reopenOnFailure);
    }

    MemoryObject(byte[] tail) {
      super("mem://object", CONTENT.length, tail, 100, 50, false);
    }

    /** Opened with a GET of the last {@code bytes} bytes. */
    static MemoryObject openedWithTail(int bytes) {
      return new MemoryObject(slice(CONTENT.length - bytes, bytes));
    }

    @Override
    protected InputStream openRange(long first, long last) {
      opened.add(first + "-" + (last < 0 ? "" : Long.toString(last)));
      int end = (int) Math.min(truncateAnswersAt, last < 0 ? CONTENT.length : last + 1);
      InputStream answer = new ByteArrayInputStream(CONTENT, (int) first, end - (int) first);
      if (breakNextAnswer) {
        breakNextAnswer = false;
        return new FilterInputStream(answer) {
          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            throw new IOException("Connection reset");
          }
        };
      }
      return answer;
    }

    @Override
    protected InputStream body(InputStream answer) {
      return answer;
    }

    @Override
    protected void release(InputStream answer, boolean abort) {
      released.add(abort ? "abort" : "close");
    }
  }

  private static byte[] content(int size) {
    byte[] bytes = new byte[size];
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (i * 31 + 7);
    }
    return bytes;
  }

  private static byte[] slice(int from, int count) {
    return Arrays.copyOfRange(CONTENT, from, from + count);
  }
}
