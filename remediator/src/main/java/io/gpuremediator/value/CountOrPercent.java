package io.gpuremediator.value;

import io.gpuremediator.yaml.MapReader.Parsed;

/** A number of nodes, absolute ({@code 3}) or a percentage of a total ({@code 10%}), rounding down. */
public record CountOrPercent(int value, boolean percent) {
  /** Validates the parts. */
  public CountOrPercent {
    if (value < 0 || (percent && value > 100)) {
      throw new IllegalArgumentException("a budget is a count >= 0 or a percentage from 0 to 100");
    }
  }

  /** Parses {@code N} or {@code N%}. */
  public static Parsed<CountOrPercent> parse(String text) {
    boolean percent = text.endsWith("%");
    String digits = percent ? text.substring(0, text.length() - 1) : text;
    if (!digits.matches("\\d{1,6}") || (percent && Integer.parseInt(digits) > 100)) {
      return Parsed.error("\"" + text + "\" is not a node count or a percentage from 0% to 100%");
    }
    return Parsed.ok(new CountOrPercent(Integer.parseInt(digits), percent));
  }

  /** How many nodes this budget allows out of {@code total}, rounding down. */
  public int of(int total) {
    return percent ? (int) ((long) total * value / 100) : value;
  }

  @Override
  public String toString() {
    return percent ? value + "%" : Integer.toString(value);
  }
}
