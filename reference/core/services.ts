/**
 * What one area may ask of another, as small interfaces. An area registers the services it
 * offers at start-up; a consumer looks them up by name. No area imports another area's code,
 * and only reference/areas/index.ts knows the list of areas.
 */

/** Billing offers the wallet to every area that charges (messaging charges each SMS). */
export interface WalletService {
  /** Debits the account's wallet and records a `charge` transaction; throws `insufficient_balance`. */
  charge(
    accountId: string,
    charge: { amount: number; currency: string; description: string; service: string; resourceId: string },
  ): void;
}

/** Compute offers read access to VPS instances (volumes attach to them) and to its region catalogue. */
export interface ComputeLookup {
  findVps(accountId: string, vpsId: string): { id: string; name: string; region: string; status: string } | undefined;
  /** A region of GET /regions, so other areas accept exactly the same slugs. */
  findRegion(slug: string): { slug: string; available: boolean; features: string[] } | undefined;
  /** Calls `listener` after an instance is deleted (attached volumes detach from it). */
  onVpsDeleted(listener: (accountId: string, vpsId: string) => void): void;
}

/** A resource as a project lists it (specification, "Project resource"). */
export interface ProjectResource {
  id: string;
  type: string;
  name: string;
  status: string;
  service: 'compute' | 'storage' | 'messaging';
  region: string | null;
  monthly_cost: number;
  created_at: string;
  project_id: string | null;
}

/** Cost of one service over a period, for current usage and cost analytics. */
export interface ServiceUsage {
  service: 'compute' | 'storage' | 'messaging';
  cost: number;
  /** Entries in the shape GET /account/usage shows for that service. */
  resources: Array<Record<string, unknown>>;
  /** Extra service-level fields (messaging: messages_sent, cost_per_message). */
  extra?: Record<string, unknown>;
}

/** Each area with billable resources offers one; billing and projects read all of them. */
export interface ResourceProvider {
  service: 'compute' | 'storage' | 'messaging';
  resources(accountId: string): ProjectResource[];
  usage(accountId: string, fromMs: number, toMs: number): ServiceUsage;
  /** Deletes one resource (DELETE /projects/{id} removes its resources). */
  remove(accountId: string, resourceId: string): void;
}

export interface ServiceMap {
  wallet: WalletService;
  compute: ComputeLookup;
}

export class ServiceRegistry {
  private readonly services = new Map<keyof ServiceMap, unknown>();
  readonly resourceProviders: ResourceProvider[] = [];

  provide<K extends keyof ServiceMap>(name: K, service: ServiceMap[K]): void {
    if (this.services.has(name)) throw new Error(`service ${name} registered twice`);
    this.services.set(name, service);
  }

  get<K extends keyof ServiceMap>(name: K): ServiceMap[K] {
    const service = this.services.get(name);
    if (!service) throw new Error(`service ${name} is not registered`);
    return service as ServiceMap[K];
  }

  addResourceProvider(provider: ResourceProvider): void {
    this.resourceProviders.push(provider);
  }
}
