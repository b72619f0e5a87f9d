// Chroot mapping between the paths users see and the paths the server sees.
import { joinChroot, stripChroot } from '../protocol/paths.js';

export class Paths {
  constructor(readonly chroot: string) {}

  toServer(path: string): string {
    return joinChroot(this.chroot, path);
  }

  fromServer(path: string): string {
    return stripChroot(this.chroot, path);
  }
}
