/**
 * The hand-written client of the kxm hub, over the generated stubs of {@code dev.kxm.v1}.
 *
 * <p>{@link dev.kxm.hub.client.HubClient} connects as one caller (address and credentials resolved
 * by {@link dev.kxm.hub.client.ClientConfig}), attaches its metadata and default deadline to every
 * call, and adds the helpers: register, send, reply, ack, wait, the resuming {@link
 * dev.kxm.hub.client.Subscription} and the workflow worker's {@link
 * dev.kxm.hub.client.Assignments}. Failed calls surface as {@link
 * dev.kxm.hub.client.HubException}, decoded from the status details.
 */
package dev.kxm.hub.client;
