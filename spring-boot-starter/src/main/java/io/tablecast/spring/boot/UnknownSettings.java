package io.tablecast.spring.boot;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.IgnoreTopLevelConverterNotFoundBindHandler;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * The {@code tablecast.client.*} keys of an environment that no setting reads: a misspelt key
 * ({@code tablecast.client.server}, {@code reconnect-backoff.minimum}) would otherwise leave the
 * setting at its default, or the client unconfigured, without a word. Found the way Spring Boot's
 * own {@code ignoreUnknownFields = false} finds them (a bind that fails on unbound elements), in
 * every relaxed form (properties, YAML, {@code TABLECAST_CLIENT_*} environment variables), whether
 * or not a client is configured.
 */
final class UnknownSettings {
  static final String PREFIX = "tablecast.client";

  private UnknownSettings() {}

  /** One sentence per unknown key, with where it was set and the settings at its level. */
  static List<String> in(Environment environment) {
    try {
      Binder.get(environment)
          .bind(
              PREFIX,
              Bindable.of(TablecastClientProperties.class),
              new NoUnboundElementsBindHandler(new IgnoreTopLevelConverterNotFoundBindHandler()));
      return List.of();
    } catch (BindException e) {
      if (!(e.getCause() instanceof UnboundConfigurationPropertiesException unbound)) {
        return List.of(); // a value that does not convert: the client's own binding says so
      }
      List<String> problems = new ArrayList<>();
      for (ConfigurationProperty p : unbound.getUnboundProperties()) {
        problems.add(describe(p));
      }
      return problems;
    }
  }

  private static String describe(ConfigurationProperty property) {
    ConfigurationPropertyName name = property.getName();
    Origin origin = property.getOrigin();
    ConfigurationPropertyName parent = name.getParent();
    List<String> siblings = settingsUnder(parent);
    return name
        + (origin != null ? " (" + origin + ")" : "")
        + " is not a Tablecast client setting"
        + (siblings.isEmpty()
            ? ""
            : ": the settings under " + parent + " are " + String.join(", ", siblings));
  }

  /** The names of the settings directly under {@code parent}, as written in properties. */
  static List<String> settingsUnder(ConfigurationPropertyName parent) {
    ConfigurationPropertyName prefix = ConfigurationPropertyName.of(PREFIX);
    Class<?> type;
    if (parent.equals(prefix)) {
      type = TablecastClientProperties.class;
    } else if (parent.getNumberOfElements() == prefix.getNumberOfElements() + 2
        && parent
            .getElement(prefix.getNumberOfElements(), ConfigurationPropertyName.Form.DASHED)
            .equals("mirrors")) {
      type = TablecastClientProperties.Mirror.class; // tablecast.client.mirrors.NAME
    } else if (parent.getParent().equals(prefix)) {
      type = nestedType(parent.getLastElement(ConfigurationPropertyName.Form.DASHED));
    } else {
      type = null;
    }
    return type == null ? List.of() : dashedProperties(type);
  }

  private static Class<?> nestedType(String dashed) {
    for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(TablecastClientProperties.class)) {
      if (dashed(d.getName()).equals(dashed)
          && d.getPropertyType().getEnclosingClass() == TablecastClientProperties.class) {
        return d.getPropertyType();
      }
    }
    return null;
  }

  private static List<String> dashedProperties(Class<?> type) {
    TreeSet<String> names = new TreeSet<>();
    for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(type)) {
      if (d.getReadMethod() != null && !d.getName().equals("class")) {
        names.add(dashed(d.getName()));
      }
    }
    return List.copyOf(names);
  }

  /** {@code connectTimeout} as properties write it: {@code connect-timeout}. */
  private static String dashed(String camel) {
    return camel.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
  }
}
