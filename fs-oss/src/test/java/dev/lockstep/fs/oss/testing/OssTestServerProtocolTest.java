package dev.lockstep.fs.oss.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.aliyun.oss.ClientBuilderConfiguration;
import com.aliyun.oss.OSS;
import com.aliyun.oss.OSSClientBuilder;
import com.aliyun.oss.OSSException;
import com.aliyun.oss.common.utils.CRC64;
import com.aliyun.oss.model.CompleteMultipartUploadRequest;
import com.aliyun.oss.model.CopyObjectRequest;
import com.aliyun.oss.model.DeleteObjectsRequest;
import com.aliyun.oss.model.GetObjectRequest;
import com.aliyun.oss.model.InitiateMultipartUploadRequest;
import com.aliyun.oss.model.ListObjectsRequest;
import com.aliyun.oss.model.ListObjectsV2Request;
import com.aliyun.oss.model.ListObjectsV2Result;
import com.aliyun.oss.model.OSSObject;
import com.aliyun.oss.model.OSSObjectSummary;
import com.aliyun.oss.model.ObjectListing;
import com.aliyun.oss.model.ObjectMetadata;
import com.aliyun.oss.model.PartETag;
import com.aliyun.oss.model.PutObjectRequest;
import com.aliyun.oss.model.UploadPartRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The test server speaks what the real OSS SDK sends, and answers what the SDK expects. */
class OssTestServerProtocolTest {

  private static final String BUCKET = "test-bucket";

  private OssTestServer server;
  private OSS oss;

  @BeforeEach
  void start() throws IOException {
    server = OssTestServer.start().createBucket(BUCKET);
    oss = client(server.accessKeyId(), server.accessKeySecret());
  }

  @AfterEach
  void stop() {
    oss.shutdown();
    server.close();
  }

  private OSS client(String id, String secret) {
    ClientBuilderConfiguration conf = new ClientBuilderConfiguration();
    conf.setMaxErrorRetry(0);
    return new OSSClientBuilder().build(server.endpoint(), id, secret, conf);
  }

  @Test
  void putThenGetAndHeadReturnContentMetadataAndEtag() throws IOException {
    byte[] content = "hello, oss".getBytes(StandardCharsets.UTF_8);
    ObjectMetadata meta = new ObjectMetadata();
    meta.setContentType("text/plain");
    meta.addUserMetadata("commit-id", "c-1");
    String etag =
        oss.putObject(BUCKET, "dir/a b+c/é.txt", new ByteArrayInputStream(content), meta).getETag();

    ObjectMetadata head = oss.getObjectMetadata(BUCKET, "dir/a b+c/é.txt");
    assertThat(head.getContentLength()).isEqualTo(content.length);
    assertThat(head.getETag()).isEqualTo(etag).hasSize(32);
    assertThat(head.getContentType()).isEqualTo("text/plain");
    assertThat(head.getUserMetadata()).containsEntry("commit-id", "c-1");
    assertThat(head.getLastModified()).isNotNull();
    CRC64 sdkCrc = new CRC64();
    sdkCrc.update(content, content.length);
    assertThat(head.getServerCRC()).isEqualTo(sdkCrc.getValue()); // the SDK's own CRC-64
    try (OSSObject object = oss.getObject(BUCKET, "dir/a b+c/é.txt")) {
      assertThat(object.getObjectContent().readAllBytes()).isEqualTo(content);
    }
    assertThat(server.object(BUCKET, "dir/a b+c/é.txt")).isEqualTo(content);
  }

  @Test
  void rangedGetsServeTheSliceAndStandardBehaviourRefusesAStartPastTheEnd() throws IOException {
    byte[] content = "0123456789".getBytes(StandardCharsets.UTF_8);
    oss.putObject(BUCKET, "r", new ByteArrayInputStream(content));
    GetObjectRequest middle = new GetObjectRequest(BUCKET, "r");
    middle.setRange(2, 5);
    try (OSSObject object = oss.getObject(middle)) {
      assertThat(new String(object.getObjectContent().readAllBytes(), StandardCharsets.UTF_8))
          .isEqualTo("2345");
    }
    GetObjectRequest open = new GetObjectRequest(BUCKET, "r");
    open.setRange(7, -1);
    open.addHeader("x-oss-range-behavior", "standard");
    try (OSSObject object = oss.getObject(open)) {
      assertThat(new String(object.getObjectContent().readAllBytes(), StandardCharsets.UTF_8))
          .isEqualTo("789");
    }
    GetObjectRequest past = new GetObjectRequest(BUCKET, "r");
    past.setRange(10, -1);
    past.addHeader("x-oss-range-behavior", "standard");
    assertThatThrownBy(() -> oss.getObject(past))
        .isInstanceOf(OSSException.class)
        .extracting(e -> ((OSSException) e).getErrorCode())
        .isEqualTo("InvalidRange");
  }

  @Test
  void missingKeysAndBucketsAnswerTheirOssErrorCodes() {
    assertThatThrownBy(() -> oss.getObject(BUCKET, "absent"))
        .isInstanceOf(OSSException.class)
        .extracting(e -> ((OSSException) e).getErrorCode())
        .isEqualTo("NoSuchKey");
    assertThatThrownBy(() -> oss.getObjectMetadata(BUCKET, "absent"))
        .isInstanceOf(OSSException.class)
        .extracting(e -> ((OSSException) e).getErrorCode())
        .isEqualTo("NoSuchKey");
    assertThat(oss.doesObjectExist(BUCKET, "absent")).isFalse();
    assertThatThrownBy(() -> oss.getObject("no-such-bucket", "k"))
        .isInstanceOf(OSSException.class)
        .extracting(e -> ((OSSException) e).getErrorCode())
        .isEqualTo("NoSuchBucket");
  }

  @Test
  void aWrongSecretGetsSignatureDoesNotMatchAndAnUnknownIdInvalidAccessKeyId() {
    OSS wrongSecret = client(server.accessKeyId(), "not-the-secret");
    OSS unknownId = client("LTAI-nobody", server.accessKeySecret());
    try {
      assertThatThrownBy(
              () -> wrongSecret.putObject(BUCKET, "k", new ByteArrayInputStream(new byte[] {1})))
          .isInstanceOf(OSSException.class)
          .extracting(e -> ((OSSException) e).getErrorCode())
          .isEqualTo("SignatureDoesNotMatch");
      assertThatThrownBy(() -> wrongSecret.getObjectMetadata(BUCKET, "k"))
          .isInstanceOf(OSSException.class)
          .extracting(e -> ((OSSException) e).getErrorCode())
          .isEqualTo("SignatureDoesNotMatch");
      assertThatThrownBy(() -> unknownId.listObjectsV2(BUCKET))
          .isInstanceOf(OSSException.class)
          .extracting(e -> ((OSSException) e).getErrorCode())
          .isEqualTo("InvalidAccessKeyId");
      assertThat(server.object(BUCKET, "k")).isNull();
    } finally {
      wrongSecret.shutdown();
      unknownId.shutdown();
    }
  }

  @Test
  void aContentMd5ThatDoesNotMatchTheBodyIsRefused() {
    ObjectMetadata meta = new ObjectMetadata();
    meta.setContentMD5("1B2M2Y8AsgTpgAmY7PhCfg=="); // the MD5 of nothing
    assertThatThrownBy(
            () -> oss.putObject(BUCKET, "k", new ByteArrayInputStream(new byte[] {1, 2, 3}), meta))
        .isInstanceOf(OSSException.class)
        .extracting(e -> ((OSSException) e).getErrorCode())
        .isEqualTo("InvalidDigest");
    assertThat(server.object(BUCKET, "k")).isNull();
  }

  @Test
  void listingsPageThroughKeysAndRollUpCommonPrefixes() {
    for (String key : List.of("t/a", "t/b", "t/c", "t/d/1", "t/d/2", "t/e/1", "u/x")) {
      oss.putObject(BUCKET, key, new ByteArrayInputStream(new byte[] {7}));
    }
    List<String> seen = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      ListObjectsV2Request request = new ListObjectsV2Request(BUCKET, "t/");
      request.setDelimiter("/");
      request.setMaxKeys(2);
      request.setContinuationToken(token);
      ListObjectsV2Result page = oss.listObjectsV2(request);
      page.getObjectSummaries().forEach(s -> seen.add(s.getKey()));
      prefixes.addAll(page.getCommonPrefixes());
      token = page.isTruncated() ? page.getNextContinuationToken() : null;
      pages++;
    } while (token != null);
    assertThat(seen).containsExactly("t/a", "t/b", "t/c");
    assertThat(prefixes).containsExactly("t/d/", "t/e/");
    assertThat(pages).isEqualTo(3);

    List<String> v1 = new ArrayList<>();
    String marker = null;
    do {
      ObjectListing page = oss.listObjects(new ListObjectsRequest(BUCKET, "t/", marker, null, 3));
      page.getObjectSummaries().stream().map(OSSObjectSummary::getKey).forEach(v1::add);
      marker = page.isTruncated() ? page.getNextMarker() : null;
    } while (marker != null);
    assertThat(v1).containsExactly("t/a", "t/b", "t/c", "t/d/1", "t/d/2", "t/e/1");
  }

  @Test
  void copyAndBatchDeleteWork() throws IOException {
    oss.putObject(BUCKET, "src", new ByteArrayInputStream(new byte[] {1, 2}));
    oss.copyObject(BUCKET, "src", BUCKET, "dst/copy");
    assertThat(server.object(BUCKET, "dst/copy")).containsExactly(1, 2);
    CopyObjectRequest guarded = new CopyObjectRequest(BUCKET, "src", BUCKET, "dst/copy");
    guarded.addHeader("x-oss-forbid-overwrite", "true");
    assertThatThrownBy(() -> oss.copyObject(guarded))
        .isInstanceOf(OSSException.class)
        .extracting(e -> ((OSSException) e).getErrorCode())
        .isEqualTo("FileAlreadyExists");

    DeleteObjectsRequest delete =
        new DeleteObjectsRequest(BUCKET).withKeys(List.of("src", "dst/copy", "never-existed"));
    delete.setQuiet(false);
    assertThat(oss.deleteObjects(delete).getDeletedObjects())
        .containsExactlyInAnyOrder("src", "dst/copy", "never-existed");
    assertThat(server.keys(BUCKET)).isEmpty();
  }

  @Test
  void multipartUploadsAssembleParsAndHonorForbidOverwriteOnComplete() throws IOException {
    Random random = new Random(7);
    byte[] part1 = new byte[OssBucket.MIN_PART_SIZE];
    byte[] part2 = new byte[1234];
    random.nextBytes(part1);
    random.nextBytes(part2);
    String uploadId =
        oss.initiateMultipartUpload(new InitiateMultipartUploadRequest(BUCKET, "big"))
            .getUploadId();
    List<PartETag> etags = new ArrayList<>();
    etags.add(uploadPart(uploadId, 1, part1));
    etags.add(uploadPart(uploadId, 2, part2));
    CompleteMultipartUploadRequest complete =
        new CompleteMultipartUploadRequest(BUCKET, "big", uploadId, etags);
    complete.addHeader("x-oss-forbid-overwrite", "true");
    oss.completeMultipartUpload(complete);
    try (InputStream in = oss.getObject(BUCKET, "big").getObjectContent()) {
      byte[] read = in.readAllBytes();
      assertThat(read).hasSize(part1.length + part2.length);
      assertThat(read).startsWith(part1).endsWith(part2);
    }

    String second =
        oss.initiateMultipartUpload(new InitiateMultipartUploadRequest(BUCKET, "big-2"))
            .getUploadId();
    PartETag only = uploadPart(second, 1, part2);
    oss.putObject(BUCKET, "big-2", new ByteArrayInputStream(new byte[] {9}));
    CompleteMultipartUploadRequest late =
        new CompleteMultipartUploadRequest(BUCKET, "big-2", second, new ArrayList<>(List.of(only)));
    late.addHeader("x-oss-forbid-overwrite", "true");
    assertThatThrownBy(() -> oss.completeMultipartUpload(late))
        .isInstanceOf(OSSException.class)
        .extracting(e -> ((OSSException) e).getErrorCode())
        .isEqualTo("FileAlreadyExists");
    assertThat(server.object(BUCKET, "big-2")).containsExactly(9);
    oss.abortMultipartUpload(
        new com.aliyun.oss.model.AbortMultipartUploadRequest(BUCKET, "big-2", second));
    assertThat(server.uploadsInProgress(BUCKET)).isZero();
  }

  private PartETag uploadPart(String uploadId, int number, byte[] content) {
    UploadPartRequest request =
        new UploadPartRequest(
            BUCKET, "big", uploadId, number, new ByteArrayInputStream(content), content.length);
    if (number == 1 && content.length == 1234) {
      request.setKey("big-2");
    }
    return oss.uploadPart(request).getPartETag();
  }

  @Test
  void virtualHostedAddressingNamesTheBucketInTheHost() throws IOException {
    oss.putObject(BUCKET, "vh/key", new ByteArrayInputStream(new byte[] {4, 2}));
    String date = OssApi.RFC822.format(java.time.Instant.now());
    String signature =
        OssSignatureV1.sign(
            server.accessKeySecret(),
            OssSignatureV1.stringToSign(
                "GET",
                java.util.Map.of("date", List.of(date)),
                BUCKET,
                "vh/key",
                java.util.Map.of()));
    java.net.URI endpoint = java.net.URI.create(server.endpoint());
    try (java.net.Socket socket = new java.net.Socket(endpoint.getHost(), endpoint.getPort())) {
      socket
          .getOutputStream()
          .write(
              ("GET /vh/key HTTP/1.1\r\nHost: "
                      + BUCKET
                      + ".oss-test.example:"
                      + endpoint.getPort()
                      + "\r\nDate: "
                      + date
                      + "\r\nAuthorization: OSS "
                      + server.accessKeyId()
                      + ":"
                      + signature
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.UTF_8));
      byte[] answer = socket.getInputStream().readAllBytes();
      String head = new String(answer, StandardCharsets.ISO_8859_1);
      assertThat(head).startsWith("HTTP/1.1 200").contains("\r\nx-oss-object-type: Normal\r\n");
      assertThat(answer[answer.length - 2]).isEqualTo((byte) 4);
      assertThat(answer[answer.length - 1]).isEqualTo((byte) 2);
    }
  }

  @Test
  void putWithForbidOverwriteRefusesAnExistingObject() {
    oss.putObject(BUCKET, "once", new ByteArrayInputStream(new byte[] {1}));
    PutObjectRequest again =
        new PutObjectRequest(BUCKET, "once", new ByteArrayInputStream(new byte[] {2}));
    ObjectMetadata meta = new ObjectMetadata();
    meta.setHeader("x-oss-forbid-overwrite", "true");
    again.setMetadata(meta);
    assertThatThrownBy(() -> oss.putObject(again))
        .isInstanceOf(OSSException.class)
        .satisfies(
            e -> assertThat(((OSSException) e).getErrorCode()).isEqualTo("FileAlreadyExists"));
    assertThat(server.object(BUCKET, "once")).containsExactly(1);
  }
}
