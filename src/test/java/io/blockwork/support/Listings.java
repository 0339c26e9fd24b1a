package io.blockwork.support;

import static io.blockwork.support.Requests.admin;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import com.jayway.jsonpath.JsonPath;
import org.springframework.test.web.servlet.MockMvc;

/**
 * A listing as the API shows it, narrowed to one test's own names. Test classes share one
 * application, so a before/after comparison of a whole listing also sees other classes' arrays
 * resyncing and bitmap daemons writing; the objects a test owns change only by its requests.
 */
public final class Listings {

    private Listings() {}

    /** The elements of the JSON array at {@code url} whose name starts with {@code prefix}, as JSON. */
    public static String named(MockMvc mvc, String url, String prefix) throws Exception {
        String body = mvc.perform(get(url).with(admin())).andReturn().getResponse().getContentAsString();
        return JsonPath.parse(body).read("$[?(@.name =~ /" + prefix + ".*/)]").toString();
    }
}
