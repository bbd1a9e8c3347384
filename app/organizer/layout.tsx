// The organizer console's frame: its stylesheet. Every page checks the organizer role itself
// (a layout is not re-run on client navigation, so it cannot guard its pages).
import type { ReactNode } from 'react';
import './organizer.css';

export default function OrganizerLayout({ children }: { children: ReactNode }) {
  return children;
}
