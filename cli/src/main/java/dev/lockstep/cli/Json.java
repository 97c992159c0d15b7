package dev.lockstep.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;

/** Every JSON the command line prints is built as a Jackson tree and written on one line. */
final class Json {

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** {@code value} with three decimals, as the reports print measurements; null when not finite. */
  static BigDecimal threeDecimals(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return null;
    }
    return BigDecimal.valueOf(value).setScale(3, RoundingMode.HALF_UP);
  }

  /** One line of compact JSON. */
  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree could not be written", e);
    }
  }
}
