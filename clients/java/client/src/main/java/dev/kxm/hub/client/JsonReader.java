package dev.kxm.hub.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for the credentials file (objects, arrays, strings, numbers, literals), so
 * that the library needs no JSON dependency. Objects become {@code Map<String, Object>}, arrays
 * {@code List<Object>}, numbers {@code Double}.
 */
final class JsonReader {
  private final String text;
  private int at;

  private JsonReader(String text) {
    this.text = text;
  }

  /** The value of {@code text}; throws IllegalArgumentException when it is not JSON. */
  static Object parse(String text) {
    JsonReader reader = new JsonReader(text);
    Object value = reader.value();
    reader.space();
    if (reader.at != text.length()) {
      throw reader.error("trailing characters");
    }
    return value;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("invalid JSON at offset " + at + ": " + what);
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  private char peek() {
    space();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    return text.charAt(at);
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    at++;
  }

  private Object value() {
    char c = peek();
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        return number();
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("unexpected character");
    }
    at += word.length();
    return value;
  }

  private Map<String, Object> object() {
    expect('{');
    Map<String, Object> map = new LinkedHashMap<>();
    if (peek() == '}') {
      at++;
      return map;
    }
    while (true) {
      if (peek() != '"') {
        throw error("expected a key");
      }
      String key = string();
      expect(':');
      map.put(key, value());
      char c = peek();
      at++;
      if (c == '}') {
        return map;
      }
      if (c != ',') {
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<Object> array() {
    expect('[');
    List<Object> list = new ArrayList<>();
    if (peek() == ']') {
      at++;
      return list;
    }
    while (true) {
      list.add(value());
      char c = peek();
      at++;
      if (c == ']') {
        return list;
      }
      if (c != ',') {
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (at >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(at++);
      if (c == '"') {
        return sb.toString();
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      if (at >= text.length()) {
        throw error("unterminated escape");
      }
      char e = text.charAt(at++);
      switch (e) {
        case '"': case '\\': case '/':
          sb.append(e);
          break;
        case 'b':
          sb.append('\b');
          break;
        case 'f':
          sb.append('\f');
          break;
        case 'n':
          sb.append('\n');
          break;
        case 'r':
          sb.append('\r');
          break;
        case 't':
          sb.append('\t');
          break;
        case 'u':
          if (at + 4 > text.length()) {
            throw error("short unicode escape");
          }
          try {
            sb.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          } catch (NumberFormatException ex) {
            throw error("bad unicode escape");
          }
          at += 4;
          break;
        default:
          throw error("bad escape");
      }
    }
  }

  private Double number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    try {
      return Double.valueOf(text.substring(start, at));
    } catch (NumberFormatException ex) {
      at = start;
      throw error("unexpected character");
    }
  }
}
