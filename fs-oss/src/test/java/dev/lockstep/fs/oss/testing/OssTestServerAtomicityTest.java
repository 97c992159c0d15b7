package dev.lockstep.fs.oss.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.aliyun.oss.ClientBuilderConfiguration;
import com.aliyun.oss.OSS;
import com.aliyun.oss.OSSClientBuilder;
import com.aliyun.oss.OSSException;
import com.aliyun.oss.model.CompleteMultipartUploadRequest;
import com.aliyun.oss.model.ObjectMetadata;
import com.aliyun.oss.model.PartETag;
import com.aliyun.oss.model.PutObjectRequest;
import com.aliyun.oss.model.UploadPartRequest;
import dev.lockstep.testing.TestTiming;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server's forbid-overwrite is atomic under contention, and its V1 signature check covers the
 * sub-resources and the date.
 */
class OssTestServerAtomicityTest {

  private static final String BUCKET = "race";
  private static final int THREADS = 16;

  private OssTestServer server;
  private OSS oss;
  private ExecutorService pool;

  @BeforeEach
  void start() throws IOException {
    server = OssTestServer.start().createBucket(BUCKET);
    ClientBuilderConfiguration conf = new ClientBuilderConfiguration();
    conf.setMaxErrorRetry(0);
    oss =
        new OSSClientBuilder()
            .build(server.endpoint(), server.accessKeyId(), server.accessKeySecret(), conf);
    pool = Executors.newFixedThreadPool(THREADS);
  }

  @AfterEach
  void stop() {
    pool.shutdownNow();
    oss.shutdown();
    server.close();
  }

  @Test
  void manyThreadsPuttingOneKeyWithForbidOverwriteHaveExactlyOneWinnerPerRound() throws Exception {
    for (int round = 0; round < 30; round++) {
      String key = "put/round-" + round;
      List<Integer> winners =
          race(
              contender -> {
                ObjectMetadata meta = new ObjectMetadata();
                meta.setHeader("x-oss-forbid-overwrite", "true");
                oss.putObject(
                    new PutObjectRequest(
                        BUCKET,
                        key,
                        new ByteArrayInputStream(new byte[] {(byte) contender}),
                        meta));
              });
      assertThat(winners).as("winners of round %d", round).hasSize(1);
      assertThat(server.object(BUCKET, key)).containsExactly(winners.get(0));
    }
  }

  @Test
  void manyThreadsCompletingUploadsOfOneKeyHaveExactlyOneWinnerPerRound() throws Exception {
    for (int round = 0; round < 5; round++) {
      String key = "complete/round-" + round;
      String[] uploads = new String[THREADS];
      PartETag[] parts = new PartETag[THREADS];
      for (int c = 0; c < THREADS; c++) {
        uploads[c] =
            oss.initiateMultipartUpload(
                    new com.aliyun.oss.model.InitiateMultipartUploadRequest(BUCKET, key))
                .getUploadId();
        parts[c] =
            oss.uploadPart(
                    new UploadPartRequest(
                        BUCKET,
                        key,
                        uploads[c],
                        1,
                        new ByteArrayInputStream(new byte[] {(byte) c}),
                        1))
                .getPartETag();
      }
      List<Integer> winners =
          race(
              contender -> {
                CompleteMultipartUploadRequest complete =
                    new CompleteMultipartUploadRequest(
                        BUCKET,
                        key,
                        uploads[contender],
                        new ArrayList<>(List.of(parts[contender])));
                complete.addHeader("x-oss-forbid-overwrite", "true");
                oss.completeMultipartUpload(complete);
              });
      assertThat(winners).as("winners of round %d", round).hasSize(1);
      assertThat(server.object(BUCKET, key)).containsExactly(winners.get(0));
    }
  }

  /** Runs one attempt per contender, started together; returns the contenders that succeeded. */
  private List<Integer> race(Contender contender) throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(THREADS);
    AtomicInteger conflicts = new AtomicInteger();
    List<Future<Integer>> futures = new ArrayList<>();
    for (int c = 0; c < THREADS; c++) {
      int id = c;
      futures.add(
          pool.submit(
              () -> {
                barrier.await();
                try {
                  contender.attempt(id);
                  return id;
                } catch (OSSException e) {
                  assertThat(e.getErrorCode()).isEqualTo("FileAlreadyExists");
                  conflicts.incrementAndGet();
                  return -1;
                }
              }));
    }
    List<Integer> winners = new ArrayList<>();
    for (Future<Integer> f : futures) {
      int id = f.get(TestTiming.seconds(30).toSeconds(), TimeUnit.SECONDS);
      if (id >= 0) {
        winners.add(id);
      }
    }
    assertThat(conflicts.get() + winners.size()).isEqualTo(THREADS);
    return winners;
  }

  private interface Contender {
    void attempt(int contender);
  }

  @Test
  void theSignatureCoversSubResourcesAndTheDate() throws IOException {
    String uploadId =
        oss.initiateMultipartUpload(
                new com.aliyun.oss.model.InitiateMultipartUploadRequest(BUCKET, "k"))
            .getUploadId();
    Map<String, String> signedFor = new LinkedHashMap<>();
    signedFor.put("partNumber", "1");
    signedFor.put("uploadId", uploadId);
    String now = OssApi.RFC822.format(Instant.now());
    assertThat(rawPut("/race/k?partNumber=1&uploadId=" + uploadId, signedFor, now))
        .as("a correctly signed raw UploadPart")
        .isEqualTo("200");
    assertThat(rawPut("/race/k?partNumber=2&uploadId=" + uploadId, signedFor, now))
        .as("another partNumber than the one signed")
        .isEqualTo("403 SignatureDoesNotMatch");
    String stale = OssApi.RFC822.format(Instant.now().minusSeconds(16 * 60));
    assertThat(rawPut("/race/k?partNumber=1&uploadId=" + uploadId, signedFor, stale))
        .as("a Date 16 minutes old")
        .isEqualTo("403 RequestTimeTooSkewed");
  }

  /** The status, and for an error the OSS error code: {@code "403 SignatureDoesNotMatch"}. */
  private String rawPut(String target, Map<String, String> signedParams, String date)
      throws IOException {
    String toSign =
        OssSignatureV1.stringToSign(
            "PUT",
            Map.of("date", List.of(date), "content-type", List.of("application/octet-stream")),
            BUCKET,
            "k",
            signedParams);
    HttpURLConnection http =
        (HttpURLConnection) URI.create(server.endpoint() + target).toURL().openConnection();
    http.setRequestMethod("PUT");
    http.setDoOutput(true);
    http.setRequestProperty("Date", date);
    http.setRequestProperty("Content-Type", "application/octet-stream");
    http.setRequestProperty(
        "Authorization",
        "OSS "
            + server.accessKeyId()
            + ":"
            + OssSignatureV1.sign(server.accessKeySecret(), toSign));
    http.getOutputStream().write(new byte[] {1});
    int status = http.getResponseCode();
    String answer = String.valueOf(status);
    if (status >= 400) {
      String xml = new String(http.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      answer += " " + xml.substring(xml.indexOf("<Code>") + 6, xml.indexOf("</Code>"));
    }
    http.disconnect();
    return answer;
  }
}
