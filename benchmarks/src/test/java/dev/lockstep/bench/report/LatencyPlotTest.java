package dev.lockstep.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.bench.LatencyRecorder;
import dev.lockstep.bench.Workloads.Contention;
import dev.lockstep.bench.Workloads.ContentionRun;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class LatencyPlotTest {

  @Test
  void drawsOneMarkerPerSystemPercentileAndWriterCountAlignedWithItsTick() throws Exception {
    List<Contention> results = new ArrayList<>();
    for (String system : List.of("lockstep", "paimon")) {
      for (int k : new int[] {1, 2, 4, 8}) {
        results.add(contention(system, k, system.equals("lockstep") ? 10.0 * k : 40.0 * k));
      }
    }
    String svg = LatencyPlot.svg("Commit latency & more", results);
    Path out = Path.of("target", "test-plot.svg");
    Files.createDirectories(out.getParent());
    Files.writeString(out, svg);

    Document doc =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    NodeList circles = doc.getElementsByTagName("circle");
    assertThat(circles.getLength()).isEqualTo(2 * 2 * 4);
    List<String> tickXs = new ArrayList<>();
    NodeList texts = doc.getElementsByTagName("text");
    for (int i = 0; i < texts.getLength(); i++) {
      Element t = (Element) texts.item(i);
      if (t.getTextContent().matches("[1248]")) {
        tickXs.add(t.getAttribute("x"));
      }
    }
    assertThat(tickXs).hasSize(4);
    for (int i = 0; i < circles.getLength(); i++) {
      assertThat(tickXs).contains(((Element) circles.item(i)).getAttribute("cx"));
    }
    assertThat(svg).contains("Commit latency &amp; more");
  }

  /** A one-round result whose every commit took {@code millis}. */
  static Contention contention(String system, int k, double millis) {
    LatencyRecorder latencies = new LatencyRecorder();
    for (int i = 0; i < 100; i++) {
      latencies.record((long) (millis * 1_000_000 * (i == 99 ? 3 : 1)));
    }
    ContentionRun run = new ContentionRun(100, 10, latencies, 5, 0, 0, 100, 10_000, 10_000);
    return Contention.pool(system, "append", k, List.of(run));
  }
}
