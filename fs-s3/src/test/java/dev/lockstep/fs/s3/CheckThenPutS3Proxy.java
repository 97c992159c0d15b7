package dev.lockstep.fs.s3;

import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * s3proxy 2.9.0, whose {@code If-None-Match: *} is check-then-put, in a JVM of its own (it cannot
 * share a class path with the 4.0.0 test server): its self-contained jar, which Maven copies into
 * {@code target/s3proxy-check-then-put/} (see the pom), on the in-memory {@code transient} store,
 * on a free port of 127.0.0.1, with the same credentials and bucket as {@link S3ProxyServer}.
 *
 * <p>A missing jar or a server that does not come up fails the test that needs it; nothing skips.
 * {@link #close()} ends the process (and only it).
 */
final class CheckThenPutS3Proxy implements AutoCloseable {

  private static final Duration STARTUP = Duration.ofMinutes(2);

  private final Process process;
  private final java.nio.file.Path log;
  private final URI endpoint;

  private CheckThenPutS3Proxy(java.nio.file.Path workDir) throws Exception {
    String jar =
        System.getProperty(
            "lockstep.s3proxy.check-then-put.jar",
            "target/s3proxy-check-then-put/s3proxy-check-then-put.jar");
    if (!Files.isRegularFile(java.nio.file.Path.of(jar))) {
      throw new IllegalStateException(
          "The s3proxy 2.9.0 jar is missing at "
              + jar
              + "; run the"
              + " build through Maven (the maven-dependency-plugin copies it in generate-test-resources)");
    }
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    endpoint = URI.create("http://127.0.0.1:" + port);
    java.nio.file.Path properties = workDir.resolve("s3proxy.properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "s3proxy.endpoint=" + endpoint,
            "s3proxy.authorization=aws-v2-or-v4",
            "s3proxy.identity=" + S3ProxyServer.ACCESS_KEY,
            "s3proxy.credential=" + S3ProxyServer.SECRET_KEY,
            "jclouds.provider=transient",
            "jclouds.identity=" + S3ProxyServer.ACCESS_KEY,
            "jclouds.credential=" + S3ProxyServer.SECRET_KEY,
            ""),
        StandardCharsets.UTF_8);
    log = workDir.resolve("s3proxy.log");
    String javaBin =
        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    process =
        new ProcessBuilder(
                javaBin,
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-jar",
                jar,
                "--properties",
                properties.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      awaitListening(port);
      try (S3Client admin = admin()) {
        admin.createBucket(b -> b.bucket(S3ProxyServer.BUCKET));
      }
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  static CheckThenPutS3Proxy start(java.nio.file.Path workDir) throws Exception {
    return new CheckThenPutS3Proxy(workDir);
  }

  URI endpoint() {
    return endpoint;
  }

  S3Client admin() {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
        .forcePathStyle(true)
        .build();
  }

  private void awaitListening(int port) throws Exception {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "s3proxy 2.9.0 exited with " + process.exitValue() + "; its output: " + tail());
      }
      try (Socket socket = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "s3proxy 2.9.0 did not listen on "
                  + port
                  + " within "
                  + STARTUP
                  + "; its output: "
                  + tail());
        }
        Thread.sleep(200);
      }
    }
  }

  private String tail() {
    try {
      String text = Files.readString(log, StandardCharsets.UTF_8);
      return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
