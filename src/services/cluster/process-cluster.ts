import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { newId } from '../../ids.js';
import { PostgresListener } from '../../store/postgres-listener.js';
import type { RegistrySchema } from '../../store/registry-schema.js';
import { clusterSecret } from '../../store/repositories/cluster-secret-repository.js';
import { REVOCATIONS_CHANNEL } from '../../store/repositories/credential-revocation-channel.js';
import { RUN_COMMANDS_CHANNEL } from '../../store/repositories/run-command-repository.js';
import { EVENTS_CHANNEL } from '../../store/repositories/workspace-event-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { EventBus } from '../event-bus.js';
import type { CredentialRevocations } from '../people/credential-revocations.js';
import { PostgresEventJournal } from './postgres-event-journal.js';
import { RunCommandRelay } from './run-command-relay.js';

/**
 * What lets several processes on one PostgreSQL database behave as one server: live
 * events committed and fanned out to every process (PostgresEventJournal), run controls routed to
 * the process executing the run (RunCommandRelay), and revoked access closing the event streams
 * this process holds (CredentialRevocations, TEAM-2), all fed by this process's one listening
 * connection. Not used by the embedded SQLite server.
 */
export class ProcessCluster {
  /** This process, as recorded with the events and commands it writes. */
  readonly origin = newId('proc');
  readonly journal: PostgresEventJournal;
  readonly commands: RunCommandRelay;
  private readonly listener: PostgresListener;

  constructor(
    url: string,
    bus: EventBus,
    dbOf: (workspaceId: string) => Promise<Kysely<WorkspaceSchema>>,
    logger: Logger,
    revocations?: CredentialRevocations,
    /** Where the deployment's shared secrets live; without it events are announced by id only. */
    private readonly registry?: Kysely<RegistrySchema>,
  ) {
    this.journal = new PostgresEventJournal(bus, dbOf, this.origin, logger);
    this.commands = new RunCommandRelay(dbOf, this.origin, logger);
    bus.useJournal(this.journal);
    this.listener = new PostgresListener(url, [EVENTS_CHANNEL, RUN_COMMANDS_CHANNEL, REVOCATIONS_CHANNEL], {
      notification: (channel, payload) => {
        if (channel === EVENTS_CHANNEL) this.journal.notified(payload);
        else if (channel === RUN_COMMANDS_CHANNEL) this.commands.notified(payload);
        else if (channel === REVOCATIONS_CHANNEL) revocations?.received(payload);
      },
      listening: () => {
        this.journal.caughtUp();
        // Revocations announced while no connection listened were missed: recheck the streams held here.
        void revocations?.recheck().catch((error: unknown) => logger.warn({ err: error }, 'open event streams could not be rechecked'));
      },
    });
  }

  async start(): Promise<void> {
    // Before the first notification is heard: this process's batches travel sealed in their
    // notifications, and the batches of every other process of the deployment open here.
    if (this.registry) this.journal.useSecret(await clusterSecret(this.registry, 'events'));
    await this.listener.start();
  }

  /** Stops listening once this process's own events are committed. */
  async close(): Promise<void> {
    await this.journal.settle();
    await this.listener.close();
  }

  /** Test seam: the listening connection drops as on a network failure; it reconnects and catches up. */
  async dropListenerForTest(): Promise<void> {
    await this.listener.dropConnectionForTest();
  }
}
