/**
 * The fixed catalogue of the compute area: regions, sizes and images. It is the same for every
 * account, so it is plain data rather than state. Slugs and ids follow the DigitalOcean-like
 * names the OpenAPI examples use (nyc1, s-1vcpu-1gb, ubuntu-22-04), so generated requests that
 * take the document's examples are valid here. Lookups go through Maps: a slug such as
 * `constructor` must not find an inherited property of a plain object.
 */

export interface Region {
  slug: string;
  name: string;
  country: string;
  continent: string;
  available: boolean;
  features: string[];
}

export interface Size {
  slug: string;
  name: string;
  vcpus: number;
  /** MB (docs/conventions.md, Compute units). */
  memory: number;
  /** GB. */
  disk: number;
  /** TB per month. */
  transfer: number;
  price_monthly: number;
  price_hourly: number;
  available: boolean;
}

export interface Image {
  id: string;
  name: string;
  distribution: string;
  version: string;
  type: 'linux' | 'windows';
  description: string;
  /** GB: a VPS size must have at least this much disk. */
  min_disk_size: number;
  created_at: string;
}

const ALL_FEATURES = ['vps', 'databases', 'storage', 'kubernetes'];

export const REGIONS: readonly Region[] = [
  {
    slug: 'nyc1',
    name: 'New York 1',
    country: 'US',
    continent: 'North America',
    available: true,
    features: ALL_FEATURES,
  },
  {
    slug: 'sfo3',
    name: 'San Francisco 3',
    country: 'US',
    continent: 'North America',
    available: true,
    features: ALL_FEATURES,
  },
  { slug: 'ams3', name: 'Amsterdam 3', country: 'NL', continent: 'Europe', available: true, features: ALL_FEATURES },
  { slug: 'fra1', name: 'Frankfurt 1', country: 'DE', continent: 'Europe', available: true, features: ALL_FEATURES },
  {
    slug: 'lon1',
    name: 'London 1',
    country: 'GB',
    continent: 'Europe',
    available: true,
    features: ['vps', 'databases', 'storage'],
  },
  { slug: 'sgp1', name: 'Singapore 1', country: 'SG', continent: 'Asia', available: true, features: ALL_FEATURES },
  {
    slug: 'blr1',
    name: 'Bangalore 1',
    country: 'IN',
    continent: 'Asia',
    available: true,
    features: ['vps', 'storage'],
  },
  {
    slug: 'syd1',
    name: 'Sydney 1',
    country: 'AU',
    continent: 'Oceania',
    available: true,
    features: ['vps', 'storage', 'kubernetes'],
  },
  // Listed but closed to new resources, so "must be an available region" is observable.
  { slug: 'nyc2', name: 'New York 2', country: 'US', continent: 'North America', available: false, features: ['vps'] },
];

/** Hourly price: the monthly price spread over 672 hours (28 days), the usual cloud billing cap. */
function size(
  slug: string,
  name: string,
  vcpus: number,
  memory: number,
  disk: number,
  transfer: number,
  monthly: number,
  available = true,
): Size {
  return {
    slug,
    name,
    vcpus,
    memory,
    disk,
    transfer,
    price_monthly: monthly,
    price_hourly: Math.round((monthly / 672) * 100000) / 100000,
    available,
  };
}

export const SIZES: readonly Size[] = [
  size('s-1vcpu-512mb', 'Basic 1 vCPU / 512 MB', 1, 512, 10, 1, 4),
  size('s-1vcpu-1gb', 'Basic 1 vCPU / 1 GB', 1, 1024, 25, 1, 6),
  size('s-1vcpu-2gb', 'Basic 1 vCPU / 2 GB', 1, 2048, 50, 2, 12),
  size('s-2vcpu-2gb', 'Basic 2 vCPU / 2 GB', 2, 2048, 60, 3, 18),
  size('s-2vcpu-4gb', 'Basic 2 vCPU / 4 GB', 2, 4096, 80, 4, 24),
  size('s-4vcpu-8gb', 'Basic 4 vCPU / 8 GB', 4, 8192, 160, 5, 48),
  size('s-8vcpu-16gb', 'Basic 8 vCPU / 16 GB', 8, 16384, 320, 6, 96),
  // Sold out: listed with available=false and refused by POST /vps and resize.
  size('m-32vcpu-256gb', 'Memory-optimised 32 vCPU / 256 GB', 32, 262144, 800, 10, 1792, false),
];

export const IMAGES: readonly Image[] = [
  image(
    'ubuntu-22-04',
    'Ubuntu 22.04 LTS',
    'ubuntu',
    '22.04',
    'linux',
    'Ubuntu 22.04 (Jammy Jellyfish), x64',
    10,
    '2022-04-21T00:00:00.000Z',
  ),
  image(
    'ubuntu-24-04',
    'Ubuntu 24.04 LTS',
    'ubuntu',
    '24.04',
    'linux',
    'Ubuntu 24.04 (Noble Numbat), x64',
    10,
    '2024-04-25T00:00:00.000Z',
  ),
  image('debian-12', 'Debian 12', 'debian', '12', 'linux', 'Debian 12 (Bookworm), x64', 10, '2023-06-10T00:00:00.000Z'),
  image('rocky-9', 'Rocky Linux 9', 'rocky', '9', 'linux', 'Rocky Linux 9, x64', 10, '2022-07-14T00:00:00.000Z'),
  image('fedora-40', 'Fedora 40', 'fedora', '40', 'linux', 'Fedora 40, x64', 15, '2024-04-23T00:00:00.000Z'),
  // Needs a 50 GB disk, so "size.disk >= image.min_disk_size" is observable with the small sizes.
  image(
    'windows-2022',
    'Windows Server 2022',
    'windows',
    '2022',
    'windows',
    'Windows Server 2022 Datacenter, x64',
    50,
    '2021-08-18T00:00:00.000Z',
  ),
];

function image(
  id: string,
  name: string,
  distribution: string,
  version: string,
  type: 'linux' | 'windows',
  description: string,
  minDisk: number,
  createdAt: string,
): Image {
  return { id, name, distribution, version, type, description, min_disk_size: minDisk, created_at: createdAt };
}

const regionsBySlug = new Map(REGIONS.map((r) => [r.slug, r]));
const sizesBySlug = new Map(SIZES.map((s) => [s.slug, s]));
const imagesById = new Map(IMAGES.map((i) => [i.id, i]));

export function findRegion(slug: string): Region | undefined {
  return regionsBySlug.get(slug);
}

export function findSize(slug: string): Size | undefined {
  return sizesBySlug.get(slug);
}

export function findImage(id: string): Image | undefined {
  return imagesById.get(id);
}
