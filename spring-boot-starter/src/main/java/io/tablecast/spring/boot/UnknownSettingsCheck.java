package io.tablecast.spring.boot;

import java.util.List;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Fails the start when a {@code tablecast.client.*} key is one no setting reads ({@link
 * UnknownSettings}), naming all of them at once, before any bean (the client among them) is made.
 */
final class UnknownSettingsCheck implements BeanFactoryPostProcessor, EnvironmentAware {
  private Environment environment;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    List<String> problems = UnknownSettings.in(environment);
    if (!problems.isEmpty()) {
      throw new UnknownSettingsException(problems);
    }
  }
}
