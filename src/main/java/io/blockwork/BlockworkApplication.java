package io.blockwork;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class BlockworkApplication {
    public static void main(String[] args) {
        SpringApplication.run(BlockworkApplication.class, args);
    }
}
